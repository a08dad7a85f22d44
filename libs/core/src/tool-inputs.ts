import { addressPermitted, type FieldProblem } from '@pressroom/domain';
import type { ArtifactStorage } from './artifact-storage.ts';
import { PdfToolFailure } from './ports/pdf-toolkit.ts';
import { hostAddresses, type Lookup } from './url-host.ts';

/** One https GET to addresses already vetted (the renderer's pinned fetch), bounded in time and size. */
export type PinnedGet = (req: {
  url: URL;
  addresses: readonly string[];
  timeoutMs: number;
  maxBytes: number;
}) => Promise<{ status: number; body: Uint8Array }>;

export interface ToolInputsOptions {
  storage: Pick<ArtifactStorage, 'classifyUrl' | 'readOwn'>;
  fetch: PinnedGet;
  maxBytes: number;
  timeoutMs: number;
  lookup?: Lookup;
}

/**
 * Where a PDF tool's input URL may lead, decided the same way at the door (400) and when the
 * worker reads it (the addresses are judged again and the connection pinned to them, so a DNS
 * answer that changed in between cannot reach an internal address):
 * - a live link of our own storage to one of the tenant's files: read from storage, no network;
 * - one of our links that expired or points to another tenant's file: refused;
 * - anything else: https only, no credentials in the URL, every address of the host global
 *   (never `file:`, loopback, private, link-local or metadata addresses; no operator opening),
 *   fetched without following redirects, up to `maxBytes`.
 */
export async function documentUrlProblem(
  field: string,
  url: string,
  tenantId: string,
  opts: Pick<ToolInputsOptions, 'storage' | 'lookup'>,
): Promise<FieldProblem | undefined> {
  const judged = await judgeDocumentUrl(url, tenantId, opts);
  return 'problem' in judged ? { field, message: judged.problem } : undefined;
}

type Judged = { own: string } | { external: URL; addresses: string[] } | { problem: string };

async function judgeDocumentUrl(url: string, tenantId: string, opts: Pick<ToolInputsOptions, 'storage' | 'lookup'>): Promise<Judged> {
  const kind = opts.storage.classifyUrl(tenantId, url);
  if (kind.kind === 'own') return { own: kind.key };
  if (kind.kind === 'foreign-own') return { problem: 'is a Pressroom link that has expired or is not yours' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { problem: 'must be an absolute URL' };
  }
  if (parsed.protocol !== 'https:') return { problem: 'must be an https URL (or a link Pressroom handed out)' };
  if (parsed.username || parsed.password) return { problem: 'must not carry credentials' };
  const addresses = await hostAddresses(parsed, opts.lookup);
  if (!addresses || addresses.length === 0) return { problem: `host ${parsed.hostname} does not resolve` };
  if (!addresses.every((a) => addressPermitted(a))) {
    return { problem: 'points to an address Pressroom does not fetch from (loopback, private, link-local or metadata)' };
  }
  return { external: parsed, addresses };
}

export interface ToolInputs {
  /** The bytes behind a tool's input URL; rejects with a PdfToolFailure INPUT_UNAVAILABLE. */
  read(tenantId: string, url: string): Promise<Uint8Array>;
}

export function createToolInputs(opts: ToolInputsOptions): ToolInputs {
  const unavailable = (message: string) => new PdfToolFailure('INPUT_UNAVAILABLE', message);
  return {
    async read(tenantId, url) {
      const judged = await judgeDocumentUrl(url, tenantId, opts);
      if ('problem' in judged) throw unavailable(`The document URL ${judged.problem}.`);
      if ('own' in judged) {
        const file = await opts.storage.readOwn(judged.own, opts.maxBytes);
        if (file === 'too-large') throw unavailable(`A document is larger than ${opts.maxBytes} bytes.`);
        if (!file) throw unavailable('A document linked from Pressroom is gone (never uploaded, or deleted).');
        return file;
      }
      let answer: { status: number; body: Uint8Array };
      try {
        answer = await opts.fetch({
          url: judged.external,
          addresses: judged.addresses,
          timeoutMs: opts.timeoutMs,
          maxBytes: opts.maxBytes,
        });
      } catch (err) {
        throw unavailable(`${judged.external.host} could not be fetched: ${(err as Error).message}.`);
      }
      if (answer.status !== 200) throw unavailable(`${judged.external.host} answered ${answer.status} for a document.`);
      return answer.body;
    },
  };
}
