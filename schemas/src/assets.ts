import Type, { type Static } from 'typebox';

/** Content types an asset may have: fonts and images a page can use. */
export const ASSET_CONTENT_TYPES = [
  'font/ttf',
  'font/otf',
  'font/woff',
  'font/woff2',
  'image/png',
  'image/jpeg',
  'image/svg+xml',
  'image/gif',
  'image/webp',
] as const;

/** An asset name is one path segment a template can put in a URL as is. */
export const AssetName = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  description: 'Letters, digits, `.`, `_`, `-`; starts with a letter or digit. Referenced as https://assets.pressroom.invalid/<name>.',
});

export const AssetContentType = Type.Union(
  [
    Type.Literal('font/ttf'),
    Type.Literal('font/otf'),
    Type.Literal('font/woff'),
    Type.Literal('font/woff2'),
    Type.Literal('image/png'),
    Type.Literal('image/jpeg'),
    Type.Literal('image/svg+xml'),
    Type.Literal('image/gif'),
    Type.Literal('image/webp'),
  ],
  { description: 'Fonts: font/ttf, font/otf, font/woff, font/woff2. Images: image/png, image/jpeg, image/svg+xml, image/gif, image/webp.' },
);

export const AssetUploadBody = Type.Object(
  {
    name: AssetName,
    contentType: AssetContentType,
    dataBase64: Type.String({ minLength: 1, pattern: '^[A-Za-z0-9+/\\s]*={0,2}\\s*$', description: 'The file, base64-encoded.' }),
  },
  { additionalProperties: false },
);

export const AssetResource = Type.Object(
  {
    name: Type.String(),
    contentType: Type.String(),
    bytes: Type.Integer({ minimum: 0 }),
    sha256: Type.String(),
    url: Type.String({ description: 'The URL a template uses for it.' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export type AssetUploadBody = Static<typeof AssetUploadBody>;
export type AssetResource = Static<typeof AssetResource>;
export type AssetContentType = Static<typeof AssetContentType>;
