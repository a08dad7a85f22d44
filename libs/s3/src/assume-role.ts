import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@aws-sdk/types';

export interface AssumeRoleOptions {
  roleArn: string;
  externalId?: string;
  region: string;
  /** The STS endpoint; default: AWS's regional one. Set for an STS-compatible server (tests, MinIO, air-gapped sites). */
  stsEndpoint?: string;
  /** The identity that assumes the role: default, the service's own credentials from the AWS default chain (environment, instance role). */
  baseCredentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
}

/** Renew this long before the temporary credentials expire. */
const REFRESH_MARGIN_MS = 5 * 60_000;

/**
 * Temporary credentials of a tenant's role (STS AssumeRole with the tenant's external id, the
 * usual cross-account pattern), fetched when first needed and again shortly before they expire.
 * A failure is not cached: the next call asks STS again.
 */
export function assumeRoleCredentials(options: AssumeRoleOptions): AwsCredentialIdentityProvider {
  const sts = new STSClient({
    region: options.region,
    ...(options.stsEndpoint ? { endpoint: options.stsEndpoint } : {}),
    ...(options.baseCredentials ? { credentials: options.baseCredentials } : {}),
    maxAttempts: 2,
  });
  let current: Promise<AwsCredentialIdentity> | undefined;
  const fetchCredentials = async (): Promise<AwsCredentialIdentity> => {
    const out = await sts.send(
      new AssumeRoleCommand({
        RoleArn: options.roleArn,
        RoleSessionName: 'pressroom',
        DurationSeconds: 3600,
        ...(options.externalId ? { ExternalId: options.externalId } : {}),
      }),
    );
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error(`STS AssumeRole of ${options.roleArn} answered no credentials`);
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      ...(c.SessionToken ? { sessionToken: c.SessionToken } : {}),
      ...(c.Expiration ? { expiration: c.Expiration } : {}),
    };
  };
  return async () => {
    const held = current ? await current.catch(() => undefined) : undefined;
    if (held && (!held.expiration || held.expiration.getTime() - Date.now() > REFRESH_MARGIN_MS)) return held;
    current = fetchCredentials();
    current.catch(() => (current = undefined));
    return current;
  };
}
