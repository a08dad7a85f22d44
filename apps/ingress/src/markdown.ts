import MarkdownIt from 'markdown-it';

/**
 * Markdown → the HTML our Chromium pipeline prints (convert-markdown-to-pdf). markdown-it with
 * raw HTML off: any `<tag>` in the Markdown is shown as text, never parsed, so no script, iframe
 * or form reaches the page; links and images with `javascript:`, `vbscript:`, `file:` or
 * non-image `data:` URLs are dropped by markdown-it's link check. What remains (images, CSS
 * `url()`) is fetched, if at all, under the render's network policy like any other render.
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

const BASE_CSS = `
  body { font-family: 'Liberation Sans', Arial, Helvetica, sans-serif; font-size: 12pt; line-height: 1.5; color: #1a1a1a; margin: 0; }
  h1, h2, h3, h4, h5, h6 { line-height: 1.25; margin: 1.2em 0 0.5em; }
  pre, code { font-family: 'Liberation Mono', monospace; font-size: 0.9em; background: #f4f4f4; }
  pre { padding: 0.75em; white-space: pre-wrap; word-break: break-word; }
  table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; }
  blockquote { margin: 0; padding-left: 1em; border-left: 3px solid #ccc; color: #555; }
  img { max-width: 100%; }
`;

/**
 * CSS goes inside a <style> element: a `<` could close it (`</style><script>…`) and start
 * markup, so every `<` is written as the CSS escape `\3c ` (the same character to CSS, never a
 * tag to the HTML parser).
 */
export function escapeCss(css: string): string {
  return css.replace(/</g, '\\3c ');
}

export function markdownDocument(markdown: string, customCss: string | undefined): string {
  const body = md.render(markdown);
  const title = /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? 'Document';
  return [
    '<!DOCTYPE html><html><head><meta charset="utf-8">',
    `<title>${md.utils.escapeHtml(title)}</title>`,
    `<style>${BASE_CSS}</style>`,
    customCss ? `<style>${escapeCss(customCss)}</style>` : '',
    '</head><body>',
    body,
    '</body></html>',
  ].join('');
}
