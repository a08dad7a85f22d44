import { readFileSync } from 'node:fs';
import type { AssetSource } from '@pressroom/core';

/**
 * A font no page falls back to by itself (Chromium's default serif here is Liberation Serif), so
 * its name in pdffonts proves the asset was loaded and embedded.
 */
export const NARROW_FONT = {
  bytes: readFileSync('/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Regular.ttf'),
  /** The PostScript name pdffonts shows (after the subset prefix). */
  pdfName: 'LiberationSansNarrow',
};

/** An AssetSource over a map of name → bytes, recording every name it was asked for. */
export function memoryAssets(files: Record<string, { bytes: Uint8Array; contentType: string }>): AssetSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async get(name) {
      asked.push(name);
      return Object.hasOwn(files, name) ? files[name] : undefined;
    },
  };
}
