import Type, { type Static } from 'typebox';

const Length = Type.String({
  pattern: '^(0|[0-9]+(\\.[0-9]+)?(px|in|cm|mm))$',
  description: 'A CSS length with unit: px, in, cm or mm (e.g. "12mm").',
});

/**
 * Page setup: stored with a template, overridable per request through `pdfParams` on every
 * render endpoint. Request values win over the template's, field by field (margins per side).
 */
export const PdfParams = Type.Object(
  {
    format: Type.Optional(
      // Spelled out, not mapped from an array: a mapped array loses the literal types (the
      // static type of `format` became `undefined`).
      Type.Union(
        [
          Type.Literal('A0'),
          Type.Literal('A1'),
          Type.Literal('A2'),
          Type.Literal('A3'),
          Type.Literal('A4'),
          Type.Literal('A5'),
          Type.Literal('A6'),
          Type.Literal('Letter'),
          Type.Literal('Legal'),
          Type.Literal('Tabloid'),
          Type.Literal('Ledger'),
        ],
        {
          description: 'Paper format; ignored when width and height are given.',
        },
      ),
    ),
    width: Type.Optional(Length),
    height: Type.Optional(Length),
    landscape: Type.Optional(Type.Boolean()),
    margin: Type.Optional(
      Type.Object(
        { top: Type.Optional(Length), right: Type.Optional(Length), bottom: Type.Optional(Length), left: Type.Optional(Length) },
        { additionalProperties: false },
      ),
    ),
    scale: Type.Optional(Type.Number({ minimum: 0.1, maximum: 2 })),
    printBackground: Type.Optional(Type.Boolean()),
    pageRanges: Type.Optional(Type.String({ pattern: '^\\s*\\d+(\\s*-\\s*\\d+)?(\\s*,\\s*\\d+(\\s*-\\s*\\d+)?)*\\s*$', maxLength: 200 })),
    preferCSSPageSize: Type.Optional(
      Type.Boolean({ description: 'CSS @page size wins over format/width/height. Default false, as in Chromium and Puppeteer.' }),
    ),
    emulatedMedia: Type.Optional(Type.Union([Type.Literal('print'), Type.Literal('screen')])),
    hasCover: Type.Optional(Type.Boolean({ description: 'Hide header and footer on the first page.' })),
    displayHeaderFooter: Type.Optional(
      Type.Boolean({ description: 'Print headerTemplate and footerTemplate (Chromium page.pdf() style) in the top and bottom margins.' }),
    ),
    headerTemplate: Type.Optional(
      Type.String({
        maxLength: 100_000,
        description:
          'HTML of the header (with displayHeaderFooter); elements of class pageNumber, totalPages, title, date, url are filled in.',
      }),
    ),
    footerTemplate: Type.Optional(Type.String({ maxLength: 100_000, description: 'HTML of the footer, as headerTemplate.' })),
    outline: Type.Optional(Type.Boolean({ description: 'PDF bookmarks (document outline) from the headings.' })),
    tagged: Type.Optional(Type.Boolean({ description: 'Tagged (accessible) PDF.' })),
    omitBackground: Type.Optional(Type.Boolean({ description: 'No default white background: transparent where the page paints nothing.' })),
    timeout: Type.Optional(
      Type.Integer({ minimum: 0, description: "Time limit of the render in ms; 0 or more than the service's limit: the service's limit." }),
    ),
  },
  { additionalProperties: false },
);
export type PdfParams = Static<typeof PdfParams>;

/**
 * When the page is ready to print, within the render's time limit: fonts loaded and images
 * decoded always; then, optionally, a selector present, a JavaScript expression truthy, or the
 * network idle.
 */
export const ReadySignal = Type.Object(
  {
    selector: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    expression: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    networkIdle: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ReadySignal = Static<typeof ReadySignal>;
