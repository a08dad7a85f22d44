/**
 * Paper formats and CSS lengths as Chromium's page.pdf() (and Puppeteer) know them. Pure: used
 * at the door to read what clients send, and by the renderer to size the sheet.
 */

/** CSS px per unit: CSS fixes 96 px to the inch. */
export const PX_PER_UNIT = { px: 1, in: 96, cm: 96 / 2.54, mm: 96 / 25.4 } as const;
export type LengthUnit = keyof typeof PX_PER_UNIT;

/** The paper format names, spelled as the API answers them. */
export const PAPER_FORMATS = ['Letter', 'Legal', 'Tabloid', 'Ledger', 'A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6'] as const;
export type PaperFormat = (typeof PAPER_FORMATS)[number];

const mm = (w: number, h: number) => ({ width: w * PX_PER_UNIT.mm, height: h * PX_PER_UNIT.mm });
const inch = (w: number, h: number) => ({ width: w * PX_PER_UNIT.in, height: h * PX_PER_UNIT.in });

/**
 * Each format's sheet in CSS px, as Puppeteer's table has it: ISO sizes from millimetres, US sizes
 * from inches. Ledger is Tabloid turned sideways (17 x 11 in), as in Puppeteer.
 */
export const PAPER_SIZES_PX: Record<PaperFormat, { width: number; height: number }> = {
  Letter: inch(8.5, 11),
  Legal: inch(8.5, 14),
  Tabloid: inch(11, 17),
  Ledger: inch(17, 11),
  A0: mm(841, 1189),
  A1: mm(594, 841),
  A2: mm(420, 594),
  A3: mm(297, 420),
  A4: mm(210, 297),
  A5: mm(148, 210),
  A6: mm(105, 148),
};

const BY_LOWER = new Map<string, PaperFormat>(PAPER_FORMATS.map((f) => [f.toLowerCase(), f]));

/** A format name in any case ("a4", "LETTER") as we spell it, or undefined for an unknown one. */
export function canonicalPaperFormat(name: string): PaperFormat | undefined {
  return BY_LOWER.get(name.trim().toLowerCase());
}

/**
 * A length as clients send it, in the canonical form of our schema ("12mm", "40px", "0"):
 * a number or a unitless numeric string is CSS px (Puppeteer's rule); units in any case and
 * surrounding spaces are accepted. Anything else comes back unchanged, for the schema to refuse.
 */
export function canonicalLength(value: unknown): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return value;
    return value === 0 ? '0' : `${trimNumber(value)}px`;
  }
  if (typeof value !== 'string') return value;
  const m = /^\s*([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*(px|in|cm|mm)?\s*$/i.exec(value);
  if (!m?.[1]) return value;
  const n = Number(m[1]);
  if (n === 0) return '0';
  return `${trimNumber(n)}${(m[2] ?? 'px').toLowerCase()}`;
}

function trimNumber(n: number): string {
  // At most 4 decimals: enough for a 1/1000 mm, and no "1e-7px" the schema would refuse.
  return String(Math.round(n * 10_000) / 10_000);
}
