import type { Http, StatusViewEntry } from '@pressroom/schemas';
import { formatRenderMetadata } from './render-metadata.ts';

/**
 * The status body of the spec (section 4.4), also used for webhook bodies. `signedUrl` is
 * minted by the caller at hand-out time, so it is a parameter.
 */
export function statusBody(entry: StatusViewEntry, signedUrl: string): Http.StatusResponse {
  const body = contractStatusBody(entry, signedUrl);
  // The caller's own reference, only when it sent one: a body without it is exactly the contract's.
  return entry.externalId !== undefined ? { ...body, externalId: entry.externalId } : body;
}

function contractStatusBody(entry: StatusViewEntry, signedUrl: string): Http.StatusResponse {
  if (entry.state === 'SUCCESS' && entry.artifact) {
    return {
      requestId: entry.requestId,
      renderStatus: 'SUCCESS',
      signedUrl,
      metadata: formatRenderMetadata(entry.executionMs ?? 0, entry.artifact.bytes, entry.cached),
    };
  }
  if (entry.state === 'FAILED') {
    return {
      requestId: entry.requestId,
      renderStatus: 'FAILED',
      signedUrl: '',
      metadata: {},
      error: entry.error ?? { code: 'RENDER_ERROR', message: 'The render failed.' },
    };
  }
  return { requestId: entry.requestId, renderStatus: 'ONGOING', signedUrl: '', metadata: {} };
}

export function webhookBody(entry: StatusViewEntry, signedUrl: string): Http.WebhookBody {
  const body = statusBody(entry, signedUrl);
  if (body.renderStatus === 'ONGOING') throw new Error('webhookBody needs a finished render');
  return { ...body, renderStatus: body.renderStatus };
}
