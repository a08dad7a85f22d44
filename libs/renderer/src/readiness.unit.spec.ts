import { describe, expect, it } from 'vitest';
import { mayHaveFontsOrImages } from './readiness.ts';

describe('mayHaveFontsOrImages (whether the readiness wait is needed)', () => {
  it('skips the wait only for script-free markup with no image and no font or style sheet of its own', () => {
    expect(mayHaveFontsOrImages('<style>td { font-family: serif }</style><table><tr><td>1</td></tr></table>', false)).toBe(false);
  });

  it('waits whenever the document runs script: it may add anything after load', () => {
    expect(mayHaveFontsOrImages('<p>plain</p>', true)).toBe(true);
  });

  it.each([
    ['an image', '<p>x</p><IMG src="a.png">'],
    ['an image in a picture', '<picture><source srcset="a.webp"><img src="a.png"></picture>'],
    ['a web font', '<style>@font-face { font-family: X; src: url(x.woff2) }</style>'],
    ['an imported style sheet', '<style>@import url(fonts.css);</style>'],
    ['a linked style sheet', '<link rel="stylesheet" href="https://fonts.example/a.css">'],
    ['a preloaded font', '<link rel=preload as=font href=x.woff2>'],
  ])('waits for script-free markup with %s', (_what, html) => {
    expect(mayHaveFontsOrImages(html, false)).toBe(true);
  });
});
