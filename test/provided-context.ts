import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    KAFKA_BROKERS: string;
    REDIS_URL: string;
    S3_ENDPOINT: string;
    SCHEMA_REGISTRY_URL: string;
  }
}
