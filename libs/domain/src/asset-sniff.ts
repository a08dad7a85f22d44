/**
 * Whether the bytes look like the declared content type (magic numbers), so a page never
 * receives, say, HTML labelled as a font. SVG is text: it must contain an `<svg` element.
 */
export function looksLike(contentType: string, bytes: Uint8Array): boolean {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  const ascii = (offset: number, text: string) => [...text].every((c, i) => bytes[offset + i] === c.charCodeAt(0));
  switch (contentType) {
    case 'image/png':
      return starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
    case 'image/jpeg':
      return starts(0xff, 0xd8, 0xff);
    case 'image/gif':
      return ascii(0, 'GIF87a') || ascii(0, 'GIF89a');
    case 'image/webp':
      return ascii(0, 'RIFF') && ascii(8, 'WEBP');
    case 'image/svg+xml':
      return /<svg[\s>]/i.test(new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 4096)));
    case 'font/woff':
      return ascii(0, 'wOFF');
    case 'font/woff2':
      return ascii(0, 'wOF2');
    case 'font/otf':
      return ascii(0, 'OTTO') || starts(0x00, 0x01, 0x00, 0x00);
    case 'font/ttf':
      return starts(0x00, 0x01, 0x00, 0x00) || ascii(0, 'true') || ascii(0, 'OTTO');
    default:
      return false;
  }
}
