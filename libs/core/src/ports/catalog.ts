export type Plan = 'standard' | 'high';

export interface Tenant {
  tenantId: string;
  name: string;
  plan: Plan;
  createdAt: string;
}

/** Only the SHA-256 of a key is ever stored; keys are 256-bit random, so a fast hash is enough. */
export interface ApiKeyRecord {
  keyHash: string;
  tenantId: string;
  label: string;
  createdAt: string;
}

/** `secretAccessKey` is stored sealed (AES-256-GCM, see SecretBox); adapters never see it in clear. */
export interface S3Connection {
  tenantId: string;
  connectionId: string;
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  accessKeyId: string;
  sealedSecretAccessKey: string;
  createdAt: string;
}

/** A tenant's webhook signing secrets (`whsec_…`), stored sealed like S3 secrets. */
export interface WebhookSecrets {
  tenantId: string;
  current: { sealedSecret: string; createdAt: string };
  /** The secret before the last rotation; it keeps signing until `expiresAt`. */
  previous?: { sealedSecret: string; expiresAt: string };
}

/**
 * Tenants, API keys, S3 connections and webhook signing secrets. (Templates are not here:
 * they live in the event-sourced template view, see `TemplateView`.)
 *
 * Adapters guarantee: every read is scoped by tenant (an S3 connection or webhook secret of
 * another tenant is simply absent); writes are last-writer-wins per id, except
 * `addWebhookSecrets`, where the first writer wins.
 */
export interface Catalog {
  putTenant(tenant: Tenant): Promise<void>;
  getTenant(tenantId: string): Promise<Tenant | undefined>;
  putApiKey(record: ApiKeyRecord): Promise<void>;
  findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined>;
  putS3Connection(connection: S3Connection): Promise<void>;
  getS3Connection(tenantId: string, connectionId: string): Promise<S3Connection | undefined>;
  getWebhookSecrets(tenantId: string): Promise<WebhookSecrets | undefined>;
  /**
   * Stores `secrets` only if the tenant has none yet, and resolves with what is stored then:
   * two processes creating a tenant's first secret at once end up signing with the same one.
   */
  addWebhookSecrets(secrets: WebhookSecrets): Promise<WebhookSecrets>;
  /** Replaces the tenant's secrets (rotation); last writer wins. */
  putWebhookSecrets(secrets: WebhookSecrets): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
