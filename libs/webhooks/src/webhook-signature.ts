import { createHmac, randomBytes } from 'node:crypto';

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks signature header value: one `v1,<base64 HMAC-SHA256>` of
 * `${id}.${timestamp}.${body}` per secret, space-separated (several during a rotation's
 * overlap). The HMAC key is the base64-decoded part after `whsec_`.
 */
export function signWebhook(args: { secrets: string[]; webhookId: string; timestamp: number; body: string }): string {
  const content = `${args.webhookId}.${args.timestamp}.${args.body}`;
  return args.secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`;
    })
    .join(' ');
}
