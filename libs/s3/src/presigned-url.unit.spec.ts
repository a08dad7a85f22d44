import { describe, expect, it } from 'vitest';
import { keyOfPresignedUrl } from './s3-object-store.ts';

const q =
  'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=k%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=3600&X-Amz-Signature=abc&X-Amz-SignedHeaders=host';
const at = { bucket: 'ours', endpoint: 'http://127.0.0.1:19000', now: Date.UTC(2026, 0, 1, 0, 30) };

describe('our own S3 presigned links', () => {
  it('give the key of our bucket, path style or virtual host', () => {
    expect(keyOfPresignedUrl(`http://127.0.0.1:19000/ours/t1/uploads/x/a%20b.pdf?${q}`, at)).toBe('t1/uploads/x/a b.pdf');
    expect(keyOfPresignedUrl(`https://ours.s3.example.com/t1/a.pdf?${q}`, { ...at, endpoint: 'https://s3.example.com' })).toBe('t1/a.pdf');
  });

  it('are not ours when expired, unsigned, of another bucket or another host', () => {
    expect(keyOfPresignedUrl(`http://127.0.0.1:19000/ours/t1/a.pdf?${q}`, { ...at, now: Date.UTC(2026, 0, 1, 1, 0) })).toBeUndefined();
    expect(keyOfPresignedUrl('http://127.0.0.1:19000/ours/t1/a.pdf', at)).toBeUndefined();
    expect(keyOfPresignedUrl(`http://127.0.0.1:19000/theirs/t1/a.pdf?${q}`, at)).toBeUndefined();
    expect(keyOfPresignedUrl(`https://evil.example.com/ours/t1/a.pdf?${q}`, at)).toBeUndefined();
  });
});
