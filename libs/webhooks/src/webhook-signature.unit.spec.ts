import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook } from './webhook-signature.ts';

describe('signWebhook', () => {
  it('produces what the standardwebhooks package verifies, one signature per secret', () => {
    const [oldSecret, newSecret, stranger] = [generateWebhookSecret(), generateWebhookSecret(), generateWebhookSecret()];
    const body = JSON.stringify({ requestId: 'r', renderStatus: 'SUCCESS' });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook({ secrets: [newSecret, oldSecret], webhookId: 'msg_1', timestamp, body }),
    };
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(oldSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(stranger).verify(body, headers)).toThrow();
    expect(() => new Webhook(newSecret).verify(body.replace('SUCCESS', 'FAILED'), headers)).toThrow();
  });
});
