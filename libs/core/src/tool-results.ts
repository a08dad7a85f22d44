import type { LinkChannel, SplitPdfResponse, StatusViewEntry, ToolStatusResponse, ToolSuccessResponse } from '@pressroom/schemas';
import { formatReduction, formatSize } from '@pressroom/domain';
import type { ArtifactStorage } from './artifact-storage.ts';

/**
 * The answer of a finished PDF tool, as the real API shapes it, with links minted now (they live
 * the request's `expiration`): `{status, url, fileName, urlValidUntil}`, split `{…, totalParts,
 * urls}`, compress with `metadata {originalSize, compressedSize, reduction}`. With `where`, the
 * links are handed out there (recorded as LinkIssued).
 */
export async function toolResult(
  entry: StatusViewEntry,
  storage: Pick<ArtifactStorage, 'signedUrl'>,
  now: Date,
  where?: LinkChannel,
): Promise<ToolSuccessResponse | SplitPdfResponse | null> {
  if (entry.state !== 'SUCCESS' || !entry.artifact || !entry.tool) return null;
  const { artifact, tool } = entry;
  const handedOut = where ? ({ requestId: entry.requestId, where, file: 'result' } as const) : undefined;
  const urlValidUntil = new Date(now.getTime() + tool.expiresIn * 1000).toISOString();
  if (tool.name === 'split-pdf') {
    const parts = entry.toolResult?.parts ?? [{ key: artifact.key, bytes: artifact.bytes }];
    const urls = await Promise.all(
      parts.map((p) => storage.signedUrl(entry.tenantId, { ...artifact, key: p.key, bytes: p.bytes }, tool.expiresIn, handedOut)),
    );
    return { status: 'SUCCESS', totalParts: urls.length, fileName: tool.fileName, urlValidUntil, urls };
  }
  const url = await storage.signedUrl(entry.tenantId, artifact, tool.expiresIn, handedOut);
  const body: ToolSuccessResponse = { status: 'SUCCESS', url, fileName: tool.fileName, urlValidUntil };
  const original = entry.toolResult?.originalBytes;
  if (tool.name === 'compress-pdf' && original !== undefined) {
    body.metadata = {
      originalSize: formatSize(original),
      compressedSize: formatSize(artifact.bytes),
      reduction: formatReduction(original, artifact.bytes),
    };
  }
  return body;
}

/** `GET /v1/tools/status/{id}` (and a tool's webhook body): `{requestId, status, result, metadata}`. */
export async function toolStatusBody(
  entry: StatusViewEntry,
  storage: Pick<ArtifactStorage, 'signedUrl'>,
  now: Date,
  where?: LinkChannel,
): Promise<ToolStatusResponse> {
  if (entry.state === 'FAILED') {
    const error = entry.error ?? { code: 'RENDER_ERROR', message: 'The tool failed.' };
    return { requestId: entry.requestId, status: 'FAILED', result: null, metadata: { errorMessage: error.message, errorCode: error.code } };
  }
  return { requestId: entry.requestId, status: entry.state, result: await toolResult(entry, storage, now, where), metadata: {} };
}
