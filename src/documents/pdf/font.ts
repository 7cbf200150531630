// The PDF's typeface: Source Sans 3 (Adobe, SIL Open Font License 1.1, which allows embedding), from
// the npm package @fontsource/source-sans-3, whose WOFF 1.0 files each hold one script's subset: latin,
// latin-ext, greek and cyrillic, so that a buyer in Athens, Sofia, Prague or Kraków reads its own
// name and address. PDF/A wants every font embedded (the standard 14 are not): each subset a document
// uses is embedded whole, as a Type 0 font whose codes are the subset's glyph ids (Identity-H), with a
// ToUnicode map so that readers extract the text.
//
// A character none of the subsets has prints without its accents, else as "?" (PDF/A forbids showing
// .notdef); the embedded XML keeps the exact text.
import latinBold from "@fontsource/source-sans-3/files/source-sans-3-latin-700-normal.woff";
import latin from "@fontsource/source-sans-3/files/source-sans-3-latin-400-normal.woff";
import latinExtBold from "@fontsource/source-sans-3/files/source-sans-3-latin-ext-700-normal.woff";
import latinExt from "@fontsource/source-sans-3/files/source-sans-3-latin-ext-400-normal.woff";
import greekBold from "@fontsource/source-sans-3/files/source-sans-3-greek-700-normal.woff";
import greek from "@fontsource/source-sans-3/files/source-sans-3-greek-400-normal.woff";
import cyrillicBold from "@fontsource/source-sans-3/files/source-sans-3-cyrillic-700-normal.woff";
import cyrillic from "@fontsource/source-sans-3/files/source-sans-3-cyrillic-400-normal.woff";
import { inflate } from "./flate";

/** One subset file of one weight: a TrueType font of its own. */
export interface Face {
  /** The PostScript name the PDF gives it (BaseFont). */
  name: string;
  /** The TrueType program, uncompressed (FontFile2). */
  program: Uint8Array;
  /** Advance width of each glyph id, in 1/1000 em. */
  advances: number[];
  /** Glyph id of each code point the subset has. */
  glyphs: Map<number, number>;
  bbox: [number, number, number, number];
  ascent: number;
  descent: number;
  capHeight: number;
  italicAngle: number;
}

/** One weight: its faces, in the order a character is looked for. */
interface Family {
  faces: Face[];
  /** What shape() found for each character so far: [face, glyph], or null for none to print. */
  found: Map<string, [number, number] | null>;
}

/** A run of text in one face: its glyph ids. */
interface Run {
  face: number;
  glyphs: number[];
}

export type Weight = "regular" | "bold";

const FILES: Record<Weight, [string, ArrayBuffer | Uint8Array][]> = {
  regular: [
    ["Latin", latin],
    ["LatinExt", latinExt],
    ["Greek", greek],
    ["Cyrillic", cyrillic],
  ],
  bold: [
    ["Latin", latinBold],
    ["LatinExt", latinExtBold],
    ["Greek", greekBold],
    ["Cyrillic", cyrillicBold],
  ],
};

export type Fonts = Record<Weight, Family>;

// Each face is decoded once an isolate, when a document first needs it.
const faces = new Map<string, Promise<Face>>();
const families = new Map<number, Promise<Fonts>>();

function face(weight: Weight, index: number): Promise<Face> {
  const [script, woff] = FILES[weight][index]!;
  const name = `SourceSans3${script}-${weight === "bold" ? "Bold" : "Regular"}`;
  if (!faces.has(name)) {
    const decoded = faceOf(new Uint8Array(woff), name);
    // A decoding that failed is tried again by the next document, not remembered.
    decoded.catch(() => faces.delete(name));
    faces.set(name, decoded);
  }
  return faces.get(name)!;
}

/** Both weights with their first `count` faces (all by default; 1: Latin only). */
function loadFaces(count = FILES.regular.length): Promise<Fonts> {
  if (!families.has(count)) {
    const family = async (weight: Weight): Promise<Family> => ({
      found: new Map(),
      faces: await Promise.all(FILES[weight].slice(0, count).map((_, i) => face(weight, i))),
    });
    const loaded = Promise.all([family("regular"), family("bold")]).then(([regular, bold]) => ({ regular, bold }));
    loaded.catch(() => families.delete(count));
    families.set(count, loaded);
  }
  return families.get(count)!;
}

/**
 * The fonts for a document whose texts are `texts`: the Latin faces when they have every character (most
 * documents: an isolate's first PDF then decodes two faces, not eight), else all of them. Either way the
 * same texts get the same fonts, so the same bytes.
 */
export async function loadFonts(texts: string[]): Promise<Fonts> {
  const latin = await loadFaces(1);
  const { glyphs } = latin.regular.faces[0]!;
  const printable = (text: string) =>
    [...text.normalize("NFC")].every((char) => INVISIBLE.test(char) || glyphs.has(char.codePointAt(0)!));
  return texts.every(printable) ? latin : loadFaces();
}

/** Control and format characters: nothing to print. */
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;

// Letters with a stroke, which have no decomposition: the letter they are written on.
const BASE_LETTER: Record<string, string> = { Ł: "L", ł: "l", Đ: "D", đ: "d", Ħ: "H", ħ: "h", ı: "i", Ŧ: "T", ŧ: "t" };

/**
 * `text` as runs of glyphs, each in the first face that has its characters. Line ends and tabs print as
 * spaces, other control and format characters not at all; a character no face has loses its accents,
 * else becomes "?".
 */
export function shape(family: Family, text: string): Run[] {
  const runs: Run[] = [];
  for (const char of text.normalize("NFC").replace(/[\t\n\r]/g, " ")) {
    let found = family.found.get(char);
    if (found === undefined) family.found.set(char, (found = lookUp(family, char)));
    if (found === null) continue;
    const [face, glyph] = found;
    const last = runs[runs.length - 1];
    if (last?.face === face) last.glyphs.push(glyph);
    else runs.push({ face, glyphs: [glyph] });
  }
  return runs;
}

function lookUp(family: Family, char: string): [number, number] | null {
  const bare = char.normalize("NFD").replace(/\p{M}/gu, "");
  // A combining mark no letter took up, a control or format character: nothing to see.
  if (bare === "" || INVISIBLE.test(char)) return null;
  return glyphOf(family, char) ?? glyphOf(family, bare) ?? glyphOf(family, BASE_LETTER[char]) ?? glyphOf(family, "?")!;
}

function glyphOf(family: Family, char: string | undefined): [number, number] | undefined {
  if (char === undefined || [...char].length !== 1) return undefined;
  const codePoint = char.codePointAt(0)!;
  for (let face = 0; face < family.faces.length; face++) {
    const glyph = family.faces[face]!.glyphs.get(codePoint);
    if (glyph) return [face, glyph];
  }
  return undefined;
}

/** The width of shaped text at `size` points. */
export function widthOf(family: Family, runs: Run[], size: number): number {
  let units = 0;
  for (const run of runs) {
    const { advances } = family.faces[run.face]!;
    for (const glyph of run.glyphs) units += advances[glyph] ?? 0;
  }
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

async function faceOf(woff: Uint8Array, name: string): Promise<Face> {
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
  const glyphCount = table("maxp").getUint16(4);
  const advances = Array.from({ length: glyphCount }, (_, glyph) =>
    em(hmtx.getUint16(4 * Math.min(glyph, metrics - 1))),
  );
  const glyphs = cmapOf(table("cmap"));
  if (glyphs.size === 0) throw new Error(`${name}: no characters`);
  return {
    name,
    program: sfnt(tables, woff),
    advances,
    glyphs,
    bbox: [em(head.getInt16(36)), em(head.getInt16(38)), em(head.getInt16(40)), em(head.getInt16(42))],
    ascent: em(hhea.getInt16(4)),
    descent: em(hhea.getInt16(6)),
    capHeight: em(os2.getUint16(0) >= 2 ? os2.getInt16(88) : hhea.getInt16(4)),
    italicAngle: post.getInt32(4) / 65536,
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

/** Code point → glyph id, from the cmap's Windows Unicode BMP subtable (format 4); glyph 0 left out. */
function cmapOf(cmap: DataView): Map<number, number> {
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
  const glyphs = new Map<number, number>();
  for (let s = 0; s < segments; s++) {
    const start = cmap.getUint16(starts + 2 * s);
    const end = cmap.getUint16(ends + 2 * s);
    const delta = cmap.getUint16(deltas + 2 * s);
    const rangeOffset = cmap.getUint16(rangeOffsets + 2 * s);
    for (let codePoint = start; codePoint <= end && codePoint !== 0xffff; codePoint++) {
      let glyph = (codePoint + delta) & 0xffff;
      if (rangeOffset !== 0) {
        const raw = cmap.getUint16(rangeOffsets + 2 * s + rangeOffset + 2 * (codePoint - start));
        glyph = raw === 0 ? 0 : (raw + delta) & 0xffff;
      }
      if (glyph !== 0) glyphs.set(codePoint, glyph);
    }
  }
  return glyphs;
}
