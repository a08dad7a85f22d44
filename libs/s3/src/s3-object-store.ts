import {
  CopyObjectCommand,
  ListObjectsV2Command,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ObjectStore } from '@pressroom/core';
import { PressroomError } from '@pressroom/domain';
import { createS3Client, type S3Settings } from './s3-client.ts';
import { nameOf, statusOf, storageError } from './s3-errors.ts';

export interface S3ObjectStoreOptions extends S3Settings {
  /**
   * The endpoint clients use, when it differs from the one this process uses (a server
   * reached as `http://s3proxy:80` inside, `https://files.example.com` outside). Links are
   * signed for this host, since the host is part of the signature.
   */
  publicEndpoint?: string;
  /**
   * The bucket is ours (not a tenant's): when it is found missing (a storage server that lost
   * its data, a bucket deleted by mistake), `put` and `ping` create it again instead of
   * failing until someone does it by hand.
   */
  ownsBucket?: boolean;
}

export interface S3ObjectStore extends ObjectStore {
  /** Creates the bucket unless it exists; safe to call from several processes at once. */
  ensureBucket(): Promise<void>;
  /** Releases the clients' sockets. */
  close(): void;
}

/** SigV4 presigned URLs cannot live longer than seven days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/**
 * An ObjectStore on one S3 bucket. `put` overwrites (S3 semantics), links are SigV4
 * presigned GETs: the server itself refuses them when tampered with or expired.
 */
export function createS3ObjectStore(options: S3ObjectStoreOptions): S3ObjectStore {
  const { bucket } = options;
  const client = createS3Client(options);
  // Presigning is offline: a second client only carries the public host into the signature.
  const signer: S3Client = options.publicEndpoint ? createS3Client({ ...options, endpoint: options.publicEndpoint }) : client;

  const putObject = (key: string, bytes: Uint8Array, contentType: string) =>
    client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: contentType, ContentLength: bytes.byteLength }));

  const store: S3ObjectStore = {
    async put(key, bytes, contentType) {
      try {
        await putObject(key, bytes, contentType);
      } catch (error) {
        if (!(options.ownsBucket && isNoSuchBucket(error))) throw storageError(`PutObject ${bucket}/${key}`, error);
        await store.ensureBucket();
        try {
          await putObject(key, bytes, contentType);
        } catch (again) {
          throw storageError(`PutObject ${bucket}/${key}`, again);
        }
      }
    },

    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const bytes = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
        return { bytes, contentType: out.ContentType ?? 'application/octet-stream' };
      } catch (error) {
        if (statusOf(error) === 404 || nameOf(error) === 'NoSuchKey') return undefined;
        throw storageError(`GetObject ${bucket}/${key}`, error);
      }
    },

    async copy(fromKey, toKey) {
      try {
        // Server-side: the bytes never pass through this process. The copy is a new object (its own
        // LastModified, so retention ages it from now), independent of its source.
        await client.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: toKey,
            CopySource: `${bucket}/${encodeURIComponent(fromKey).replace(/%2F/g, '/')}`,
          }),
        );
        return true;
      } catch (error) {
        if (statusOf(error) === 404 || nameOf(error) === 'NoSuchKey') return false;
        throw storageError(`CopyObject ${bucket}/${fromKey} → ${toKey}`, error);
      }
    },

    async delete(key) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (error) {
        if (statusOf(error) === 404) return;
        throw storageError(`DeleteObject ${bucket}/${key}`, error);
      }
    },

    async signedGetUrl(key, expiresInSeconds) {
      if (!Number.isSafeInteger(expiresInSeconds) || expiresInSeconds <= 0 || expiresInSeconds > MAX_PRESIGN_SECONDS) {
        throw new PressroomError(
          'VALIDATION_FAILED',
          `An S3 link must live 1 to ${MAX_PRESIGN_SECONDS} whole seconds, not ${expiresInSeconds}.`,
        );
      }
      return getSignedUrl(signer, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: expiresInSeconds });
    },

    keyOfSignedUrl(url) {
      return keyOfPresignedUrl(url, { bucket, endpoint: options.publicEndpoint ?? options.endpoint, now: Date.now() });
    },

    async signedPutUrl(key, expiresInSeconds) {
      return getSignedUrl(signer, new PutObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: expiresInSeconds });
    },

    async size(key) {
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return out.ContentLength ?? 0;
      } catch (error) {
        if (statusOf(error) === 404 || nameOf(error) === 'NotFound' || nameOf(error) === 'NoSuchKey') return undefined;
        throw storageError(`HeadObject ${bucket}/${key}`, error);
      }
    },

    async *list(prefix, skip) {
      let token: string | undefined;
      do {
        let out;
        try {
          out = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              ...(prefix ? { Prefix: prefix } : {}),
              ...(token ? { ContinuationToken: token } : {}),
            }),
          );
        } catch (error) {
          if (options.ownsBucket && isNoSuchBucket(error)) return;
          throw storageError(`ListObjectsV2 ${bucket}/${prefix}`, error);
        }
        for (const o of out.Contents ?? []) {
          if (o.Key && o.LastModified && !skip?.(o.Key)) yield { key: o.Key, lastModified: o.LastModified };
        }
        token = out.IsTruncated ? out.NextContinuationToken : undefined;
      } while (token);
    },

    async ping() {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch (error) {
        // Readiness heals by itself: a missing bucket of ours is created again.
        if (options.ownsBucket && statusOf(error) === 404) return store.ensureBucket();
        throw storageError(`HeadBucket ${bucket}`, error);
      }
    },

    async ensureBucket() {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
        return;
      } catch (error) {
        if (statusOf(error) !== 404) throw storageError(`HeadBucket ${bucket}`, error);
      }
      try {
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
      } catch (error) {
        // Another process created it between our HEAD and our CREATE: that is success.
        const name = nameOf(error);
        if (name === 'BucketAlreadyOwnedByYou' || name === 'BucketAlreadyExists') return;
        throw storageError(`CreateBucket ${bucket}`, error);
      }
    },

    close() {
      client.destroy();
      if (signer !== client) signer.destroy();
    },
  };
  return store;
}

/** PutObject into a bucket that does not exist (S3: 404 NoSuchBucket). */
function isNoSuchBucket(error: unknown): boolean {
  return nameOf(error) === 'NoSuchBucket' || (statusOf(error) === 404 && nameOf(error) !== 'NoSuchKey');
}

/**
 * The key of a SigV4 presigned GET of `bucket` on `endpoint` (path style or virtual host),
 * unless it has expired. The signature itself is S3's to check; a caller that reads the key
 * with our credentials must confine it to what the tenant owns (its key prefix).
 */
export function keyOfPresignedUrl(url: string, at: { bucket: string; endpoint: string | undefined; now: number }): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const q = u.searchParams;
  if (!q.get('X-Amz-Signature') || !q.get('X-Amz-Credential')) return undefined;
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(q.get('X-Amz-Date') ?? '');
  const expires = Number(q.get('X-Amz-Expires'));
  if (!date || !Number.isSafeInteger(expires)) return undefined;
  const signedAt = Date.UTC(+date[1]!, +date[2]! - 1, +date[3]!, +date[4]!, +date[5]!, +date[6]!);
  if (at.now >= signedAt + expires * 1000) return undefined;
  let path: string | undefined;
  if (at.endpoint) {
    const ep = new URL(at.endpoint);
    if (u.host === ep.host && u.pathname.startsWith(`/${at.bucket}/`)) path = u.pathname.slice(at.bucket.length + 2);
    else if (u.host === `${at.bucket}.${ep.host}`) path = u.pathname.slice(1);
  } else if (u.hostname.startsWith(`${at.bucket}.s3.`) && u.hostname.endsWith('.amazonaws.com')) {
    path = u.pathname.slice(1);
  }
  if (!path) return undefined;
  try {
    return path.split('/').map(decodeURIComponent).join('/');
  } catch {
    return undefined;
  }
}
