// The PDF's typeface: Source Sans 3 (Adobe, SIL Open Font License 1.1, which allows embedding), from
// the npm package @fontsource/source-sans-3, in its "latin" subset as WOFF 1.0. PDF/A wants every font
// embedded (the standard 14 are not), so each PDF carries both weights as TrueType programs.
//
// The fonts are simple TrueType fonts in WinAnsiEncoding (Windows-1252): one byte a character, text
// that every reader extracts, and a repertoire that holds German (ä ö ü Ä Ö Ü ß), the euro sign and
// the Latin-1 letters of most European names. A character outside it, or without a glyph in the
// subset, prints without its accents (ř as r), else as "?" (PDF/A forbids showing .notdef); the
// embedded XML keeps the exact text.
import bold from "@fontsource/source-sans-3/files/source-sans-3-latin-700-normal.woff";
import regular from "@fontsource/source-sans-3/files/source-sans-3-latin-400-normal.woff";
import { inflate } from "./flate";

export interface Font {
  /** The PostScript name (BaseFont). */
  name: string;
  /** The TrueType program, uncompressed (FontFile2). */
  program: Uint8Array;
  /** Advance widths of codes 32-255 in 1/1000 em (0 where the font has no glyph). */
  widths: number[];
  bbox: [number, number, number, number];
  ascent: number;
  descent: number;
  capHeight: number;
  italicAngle: number;
  /** Whether the font has a glyph for a WinAnsi code (32-255). */
  has(code: number): boolean;
}

export const FIRST_CODE = 32;
export const LAST_CODE = 255;

// Windows-1252's 0x80-0x9F; 0x20-0x7E and 0xA0-0xFF are Unicode's own code points.
const CP1252_HIGH = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ";
const UNICODE_OF_CODE = (code: number): number =>
  code >= 0x80 && code <= 0x9f ? CP1252_HIGH.codePointAt(code - 0x80)! : code;
const CODE_OF_UNICODE = new Map<number, number>();
for (let code = FIRST_CODE; code <= LAST_CODE; code++) CODE_OF_UNICODE.set(UNICODE_OF_CODE(code), code);

let fonts: Promise<{ regular: Font; bold: Font }> | undefined;

/** Both weights, decoded once an isolate. */
export function loadFonts(): Promise<{ regular: Font; bold: Font }> {
  fonts ??= Promise.all([
    fontOf(new Uint8Array(regular), "SourceSans3-Regular"),
    fontOf(new Uint8Array(bold), "SourceSans3-Bold"),
  ]).then(([r, b]) => ({ regular: r, bold: b }));
  return fonts;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

// Letters with a stroke, which have no decomposition: the letter they are written on.
const BASE_LETTER: Record<string, string> = { Ł: "L", ł: "l", Đ: "D", đ: "d", Ħ: "H", ħ: "h", ı: "i", Ŧ: "T", ŧ: "t" };

/**
 * `text` as the fonts' one-byte codes (a "binary" string, one char a byte). Line ends and tabs become
 * spaces; a character the fonts cannot show loses its accents, else becomes "?".
 */
export function encode(font: Font, text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text; // every font here has these (fontOf checks)
  let out = "";
  for (const char of text.normalize("NFC").replace(/[\t\n\r]/g, " ")) {
    const bare = char.normalize("NFD").replace(/\p{M}/gu, "");
    if (bare === "") continue; // a combining mark no letter took up
    const code = codeOf(font, char) ?? codeOf(font, bare) ?? codeOf(font, BASE_LETTER[char]);
    out += String.fromCharCode(code ?? 0x3f);
  }
  return out;
}

function codeOf(font: Font, char: string | undefined): number | undefined {
  const code = char?.length === 1 ? CODE_OF_UNICODE.get(char.charCodeAt(0)) : undefined;
  return code !== undefined && font.has(code) ? code : undefined;
}

/** The width of encoded text (encode()) at `size` points. */
export function widthOf(font: Font, encoded: string, size: number): number {
  let units = 0;
  for (let i = 0; i < encoded.length; i++) units += font.widths[encoded.charCodeAt(i) - FIRST_CODE] ?? 0;
  return (units * size) / 1000;
}

// Tables a PDF's TrueType program needs (ISO 32000 9.9); layout tables (GPOS, GSUB, ...) are left out.
const KEPT = new Set([
  "cmap",
  "cvt ",
  "fpgm",
  "gasp",
  "glyf",
  "head",
  "hhea",
  "hmtx",
  "loca",
  "maxp",
  "name",
  "OS/2",
  "post",
  "prep",
]);

async function fontOf(woff: Uint8Array, name: string): Promise<Font> {
  const tables = await tablesOfWoff(woff);
  const table = (tag: string) => {
    const data = tables.get(tag);
    if (!data) throw new Error(`${name}: no ${tag} table`);
    return new DataView(data.buffer, data.byteOffset, data.byteLength);
  };
  const head = table("head");
  const hhea = table("hhea");
  const hmtx = table("hmtx");
  const os2 = table("OS/2");
  const post = table("post");
  const unitsPerEm = head.getUint16(18);
  const em = (units: number) => Math.round((units * 1000) / unitsPerEm);
  const metrics = hhea.getUint16(34);
  const advance = (glyph: number) => hmtx.getUint16(4 * Math.min(glyph, metrics - 1));
  const glyphOf = cmapOf(table("cmap"));

  const widths: number[] = [];
  for (let code = FIRST_CODE; code <= LAST_CODE; code++) {
    const glyph = glyphOf(UNICODE_OF_CODE(code));
    widths.push(glyph === 0 ? 0 : em(advance(glyph)));
  }
  if (widths.slice(0, 0x7f - FIRST_CODE).includes(0)) throw new Error(`${name} lacks a printable ASCII character`);
  return {
    name,
    program: sfnt(tables, woff),
    widths,
    bbox: [em(head.getInt16(36)), em(head.getInt16(38)), em(head.getInt16(40)), em(head.getInt16(42))],
    ascent: em(hhea.getInt16(4)),
    descent: em(hhea.getInt16(6)),
    capHeight: em(os2.getUint16(0) >= 2 ? os2.getInt16(88) : hhea.getInt16(4)),
    italicAngle: post.getInt32(4) / 65536,
    has: (code) => (widths[code - FIRST_CODE] ?? 0) > 0,
  };
}

/** WOFF 1.0's tables, inflated (www.w3.org/TR/WOFF/), only those a PDF needs. */
async function tablesOfWoff(woff: Uint8Array): Promise<Map<string, Uint8Array>> {
  const view = new DataView(woff.buffer, woff.byteOffset, woff.byteLength);
  if (view.getUint32(0) !== 0x774f4646) throw new Error("not a WOFF 1.0 font");
  const tables = new Map<string, Uint8Array>();
  for (let i = 0, count = view.getUint16(12); i < count; i++) {
    const entry = 44 + 20 * i;
    const tag = String.fromCharCode(...woff.subarray(entry, entry + 4));
    if (!KEPT.has(tag)) continue;
    const offset = view.getUint32(entry + 4);
    const compressed = view.getUint32(entry + 8);
    const length = view.getUint32(entry + 12);
    const data = woff.subarray(offset, offset + compressed);
    tables.set(tag, compressed < length ? await inflate(data) : data);
  }
  return tables;
}

/** An sfnt (TrueType) file of the tables, with the checksums the WOFF recorded. */
function sfnt(tables: Map<string, Uint8Array>, woff: Uint8Array): Uint8Array {
  const view = new DataView(woff.buffer, woff.byteOffset, woff.byteLength);
  const checksums = new Map<string, number>();
  for (let i = 0, count = view.getUint16(12); i < count; i++) {
    const entry = 44 + 20 * i;
    checksums.set(String.fromCharCode(...woff.subarray(entry, entry + 4)), view.getUint32(entry + 16));
  }
  const tags = [...tables.keys()].sort();
  const directory = 12 + 16 * tags.length;
  const size = tags.reduce((sum, tag) => sum + ((tables.get(tag)!.length + 3) & ~3), directory);
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  const power = 2 ** Math.floor(Math.log2(tags.length));
  dv.setUint32(0, view.getUint32(4)); // the flavor: 0x00010000, TrueType outlines
  dv.setUint16(4, tags.length);
  dv.setUint16(6, power * 16);
  dv.setUint16(8, Math.log2(power));
  dv.setUint16(10, tags.length * 16 - power * 16);
  let offset = directory;
  tags.forEach((tag, i) => {
    const data = tables.get(tag)!;
    for (let k = 0; k < 4; k++) dv.setUint8(12 + 16 * i + k, tag.charCodeAt(k));
    dv.setUint32(16 + 16 * i, checksums.get(tag)!);
    dv.setUint32(20 + 16 * i, offset);
    dv.setUint32(24 + 16 * i, data.length);
    out.set(data, offset);
    offset += (data.length + 3) & ~3;
  });
  return out;
}

/** The glyph of a Unicode code point, from the cmap's Windows Unicode BMP subtable (format 4). */
function cmapOf(cmap: DataView): (codePoint: number) => number {
  let sub = -1;
  for (let i = 0, count = cmap.getUint16(2); i < count; i++) {
    const record = 4 + 8 * i;
    if (cmap.getUint16(record) === 3 && cmap.getUint16(record + 2) === 1) sub = cmap.getUint32(record + 4);
  }
  if (sub < 0 || cmap.getUint16(sub) !== 4) throw new Error("the font has no format-4 Windows Unicode cmap");
  const segments = cmap.getUint16(sub + 6) / 2;
  const ends = sub + 14;
  const starts = ends + 2 * segments + 2;
  const deltas = starts + 2 * segments;
  const rangeOffsets = deltas + 2 * segments;
  return (codePoint) => {
    for (let s = 0; s < segments; s++) {
      if (cmap.getUint16(ends + 2 * s) < codePoint) continue;
      const start = cmap.getUint16(starts + 2 * s);
      if (start > codePoint) return 0;
      const delta = cmap.getUint16(deltas + 2 * s);
      const rangeOffset = cmap.getUint16(rangeOffsets + 2 * s);
      if (rangeOffset === 0) return (codePoint + delta) & 0xffff;
      const glyph = cmap.getUint16(rangeOffsets + 2 * s + rangeOffset + 2 * (codePoint - start));
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
    }
    return 0;
  };
}
