import { ContractViolation, serviceContract } from './openapi-contract.ts';

/**
 * A thin HTTP client for the tests: what a caller of the API would write. Every answer is also
 * checked against the OpenAPI document (openapi-contract.ts): an undocumented status or a JSON body
 * that does not match its documented schema fails the call with a ContractViolation.
 */
export function apiClient(baseUrl: string, apiKey: string) {
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const broken = serviceContract().check(method, `${baseUrl}${path}`, res.status, res.headers.get('content-type'), json);
    if (broken.length > 0) throw new ContractViolation(broken.join('\n'));
    return { status: res.status, headers: res.headers, json, text };
  }
  return {
    call,
    get: (path: string) => call('GET', path),
    post: (path: string, body: unknown) => call('POST', path, body),
    put: (path: string, body: unknown) => call('PUT', path, body),
    del: (path: string) => call('DELETE', path),
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

export async function download(url: string): Promise<{ status: number; bytes: Uint8Array; contentType: string | null }> {
  const res = await fetch(url);
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()), contentType: res.headers.get('content-type') };
}

/** POSTs an asset (base64 in JSON) as a tenant would; the API's answer. */
export function uploadAsset(api: ApiClient, name: string, bytes: Uint8Array, contentType = 'image/png') {
  return api.post('/v1/assets', { name, contentType, dataBase64: Buffer.from(bytes).toString('base64') });
}
