import { describe, expect, it } from 'vitest';
import { openApiDocument } from '@pressroom/ingress';
import { serviceContract } from './support/openapi-contract.ts';

// The checker the e2e suites' API client runs on every answer, against the service's own document.
describe('OpenAPI contract check of real answers', () => {
  const contract = serviceContract();
  const base = 'http://127.0.0.1:3000';
  const json = 'application/json; charset=utf-8';

  it('passes an answer the document describes', () => {
    const ok = { signedUrl: 'http://x/y.pdf', metadata: { executionTime: '0.4 seconds', fileSize: '9.87 kB' } };
    expect(contract.check('POST', `${base}/v1/pdf/sync`, 200, json, ok)).toEqual([]);
    const status = { requestId: 'r', renderStatus: 'ONGOING', signedUrl: '', metadata: {} };
    expect(contract.check('GET', `${base}/v1/pdf/status/0199?x=1`, 200, json, status)).toEqual([]);
    const error = { message: 'm', error: { code: 'UNAUTHENTICATED', message: 'm' } };
    expect(contract.check('GET', `${base}/v1/pdf/status/0199`, 401, json, error)).toEqual([]);
  });

  it("passes the operator's answers: a key issued for a tenant (named in the answer), the tenant itself", () => {
    const key = {
      tenantId: 'globex',
      key: {
        keyId: 'key_01',
        prefix: 'prs_live_rTBx',
        label: 'ci',
        scopes: ['render', 'manage'],
        createdAt: '2026-11-26T05:37:27.841Z',
        lastUsedAt: null,
        status: 'active',
      },
      apiKey: 'prs_live_rTBx6kt2wH8U2ShJU1jQG4MUtgBNukPE2sAMjvoT1upxa9',
      note: 'Store this key now: it is not shown again.',
    };
    expect(contract.check('POST', `${base}/admin/v1/tenants/globex/keys`, 201, json, key)).toEqual([]);
    const rotated = {
      key: key.key,
      apiKey: key.apiKey,
      note: key.note,
      previous: { ...key.key, keyId: 'key_00', status: 'expiring', expiresAt: '2026-11-27T05:37:27.841Z' },
    };
    expect(contract.check('POST', `${base}/v1/keys/key_00/rotate`, 201, json, rotated)).toEqual([]);
    expect(contract.check('POST', `${base}/admin/v1/tenants/globex/keys/key_00/rotate`, 201, json, rotated)).toEqual([]);
    const tenant = { tenantId: 'globex', name: 'Globex', plan: 'standard', createdAt: '2026-11-26T05:37:27.841Z' };
    expect(contract.check('GET', `${base}/admin/v1/tenants/globex`, 200, json, tenant)).toEqual([]);
    expect(contract.check('GET', `${base}/admin/v1/tenants/globex`, 200, json, { tenantId: 'globex' })).not.toEqual([]);
  });

  it('passes the errors that carry their context as details (410 of a deleted render), and a rotation refused as 409', () => {
    const deleted = {
      message: 'Render r was deleted at 2026-11-26T05:56:41.701Z.',
      error: {
        code: 'DELETED',
        message: 'Render r was deleted at 2026-11-26T05:56:41.701Z.',
        details: { requestId: 'r', removedAt: '2026-11-26T05:56:41.701Z' },
      },
    };
    expect(contract.check('GET', `${base}/v1/pdf/status/r`, 410, json, deleted)).toEqual([]);
    const conflict = { message: 'm', error: { code: 'CONFLICT', message: 'm' } };
    expect(contract.check('POST', `${base}/v1/keys/key_00/rotate`, 409, json, conflict)).toEqual([]);
    expect(contract.check('POST', `${base}/admin/v1/tenants`, 409, json, conflict)).toEqual([]);
  });

  it('refuses a status the operation does not document', () => {
    const [problem] = contract.check('GET', `${base}/v1/pdf/status/0199`, 418, json, { message: 'm' });
    expect(problem).toMatch(/getRenderStatus|status not documented/);
    expect(problem).toContain('418');
  });

  it('refuses a JSON body that does not match the documented schema', () => {
    const [problem] = contract.check('POST', `${base}/v1/pdf/sync`, 200, json, { signedUrl: 42 });
    expect(problem).toContain('does not match the documented schema');
  });

  type Media = Record<
    string,
    { schema?: { $ref?: string }; example?: unknown; examples?: Record<string, { summary?: string; value: unknown }> }
  >;
  /** The example of a media entry, or each of its named examples. */
  const examplesIn = (media: Media[string] | undefined): unknown[] =>
    media?.examples !== undefined ? Object.values(media.examples).map((e) => e.value) : media?.example !== undefined ? [media.example] : [];
  type Operation = {
    operationId: string;
    requestBody?: { content: Media };
    responses: Record<string, { content?: Media }>;
    callbacks?: Record<string, Record<string, Record<string, { requestBody?: { content: Media } }>>>;
  };
  const operations = () => {
    const doc = openApiDocument('http://localhost:3000') as unknown as { paths: Record<string, Record<string, Operation>> };
    return Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op, url: base + path.replace(/\{[^}]+\}/g, 'x') })),
    );
  };

  it("every example of the document's answers and request bodies keeps its own contract", () => {
    const problems: string[] = [];
    let examples = 0;
    for (const { method, op, url } of operations()) {
      for (const [status, r] of Object.entries(op.responses)) {
        for (const example of examplesIn(r.content?.['application/json'])) {
          examples++;
          problems.push(...contract.check(method, url, Number(status), json, example));
        }
      }
      const sent = op.requestBody?.content['application/json']?.example;
      if (sent !== undefined) {
        examples++;
        problems.push(...contract.checkRequest(method, url, sent));
      }
    }
    expect(examples).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });

  it('has an example for every JSON answer (success and error), every JSON request body and every webhook body', () => {
    const missing: string[] = [];
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path} (${op.operationId})`;
      for (const [status, r] of Object.entries(op.responses)) {
        const media = r.content?.['application/json'];
        if (media && examplesIn(media).length === 0) missing.push(`${where} answer ${status}`);
      }
      const body = op.requestBody?.content['application/json'];
      if (body && body.example === undefined) missing.push(`${where} request body`);
      for (const [name, byUrl] of Object.entries(op.callbacks ?? {})) {
        for (const cb of Object.values(byUrl)) {
          const sent = cb.post?.requestBody?.content['application/json'];
          if (sent && sent.example === undefined) missing.push(`${where} callback ${name}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('answers every JSON error in the one error shape (ErrorBody); only readiness answers its own 503', () => {
    const others: string[] = [];
    for (const { path, method, op } of operations()) {
      for (const [status, r] of Object.entries(op.responses)) {
        const media = r.content?.['application/json'];
        if (Number(status) < 400 || !media || (op.operationId === 'readiness' && status === '503')) continue;
        if (media.schema?.$ref !== '#/components/schemas/ErrorBody') others.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    }
    expect(others).toEqual([]);
  });

  it('leaves paths the document does not have to other tests', () => {
    expect(contract.check('GET', `${base}/v1/not-an-endpoint`, 404, json, { message: 'm' })).toEqual([]);
  });
});
