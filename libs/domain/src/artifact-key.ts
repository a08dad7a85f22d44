import type { OutputKind, StorageTarget } from '@pressroom/schemas';

export type { OutputKind };

/** The spec: a PNG link "points to a .PNG file"; PDFs get ".pdf". */
export function extensionFor(output: OutputKind): string {
  return output === 'png' ? '.PNG' : '.pdf';
}

export function contentTypeFor(output: OutputKind): string {
  return output === 'png' ? 'image/png' : 'application/pdf';
}

/**
 * The object key is derived from the request alone, so a render retried after a crash
 * overwrites the same object instead of leaving a second file behind.
 */
export function artifactKey(args: { tenantId: string; requestId: string; output: OutputKind; target: StorageTarget }): string {
  const ext = extensionFor(args.output);
  if (args.target.kind === 's3-connection') return `${args.target.key ?? args.requestId}${ext}`;
  return `${args.tenantId}/${args.requestId}${ext}`;
}
