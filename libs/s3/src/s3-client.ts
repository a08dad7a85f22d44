import { S3Client } from '@aws-sdk/client-s3';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@aws-sdk/types';

/** What it takes to reach one bucket; the secret is in clear here and only here. */
export interface S3Settings {
  /** Omit for AWS itself; an S3-compatible server's URL otherwise (`http://127.0.0.1:19000`). */
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Instead of a static key pair: a provider (an assumed role's temporary credentials, see assumeRoleCredentials). */
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** `https://host/bucket/key` instead of `https://bucket.host/key`; most S3-compatible servers need it. */
  forcePathStyle?: boolean;
  /** How long a request may go without an answer before it fails (and the SDK retries it). Default 30 000 ms. */
  requestTimeoutMs?: number;
}

/**
 * An S3 client for one set of settings. Checksums are computed and validated only when an
 * operation requires them: the SDK's default (since 3.729) sends aws-chunked bodies with
 * trailing checksums, which several S3-compatible servers mishandle or store verbatim.
 */
export function createS3Client(settings: Omit<S3Settings, 'bucket'>): S3Client {
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle ?? false,
    credentials: settings.credentials ?? { accessKeyId: settings.accessKeyId ?? '', secretAccessKey: settings.secretAccessKey ?? '' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    // A hanging server costs at most maxAttempts × requestTimeout per call; the render worker's own
    // retries (with back-off, on the render's history) take over from there.
    // throwOnRequestTimeout: without it the handler only logs a warning and the request hangs on.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: settings.requestTimeoutMs ?? 30_000, throwOnRequestTimeout: true },
  });
}
