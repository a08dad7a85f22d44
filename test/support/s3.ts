import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

/** Credentials of the local S3 server started by infra/s3-up.sh. */
export const s3Credentials = { accessKeyId: 'test-access-key', secretAccessKey: 'test-secret-key' };

export function s3Client(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { ...s3Credentials }, // a copy: the SDK tags the object it is given
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export async function createBucket(endpoint: string, name: string): Promise<void> {
  await s3Client(endpoint).send(new CreateBucketCommand({ Bucket: name }));
}

export async function listKeys(endpoint: string, bucket: string, prefix = ''): Promise<string[]> {
  const out = await s3Client(endpoint).send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key ?? '').sort();
}

/** Empties and deletes a test's bucket (one page is enough: tests store a handful of objects). */
export async function deleteBucket(endpoint: string, bucket: string): Promise<void> {
  const client = s3Client(endpoint);
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (listed.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (keys.length > 0) await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
    await client.send(new DeleteBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
}
