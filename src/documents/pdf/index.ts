// ZUGFeRD 2 / Factur-X, profile EN 16931 (docs/api.md parts 13 and 14): a PDF/A-3 whose pages show the
// invoice (invoice-pages.ts) and which embeds its CII document: the `cii` format's, declaring EN 16931.
// Deterministic: no clock and no random source. The dates are the invoice's issue date, the file
// identifier is a hash of the embedded XML, so the same invoice gives the same bytes.
import { renderCii } from "../cii";
import { EN16931_ID } from "../semantic";
import type { EInvoice } from "../../domain/einvoice";
import { xmlCarried } from "../xml";
import { bytesOf, hexString, PdfFile, type Ref } from "./file";
import { deflate } from "./flate";
import { type Face, type Fonts, loadFonts, type Weight } from "./font";
import { layoutInvoice, titleOf } from "./invoice-pages";
import { fontName, PAGE } from "./sheet";
import { type Description, EMBEDDED_NAME, embeddedInvoice, info, metadata, outputIntent } from "./pdfa";

export const PRODUCER = "voucher-billing-api";
export const LANGUAGE_TAGS = { de: "de-DE", en: "en-GB" } as const;

export async function renderPdf(doc: EInvoice): Promise<Uint8Array> {
  // The CII as `format=cii` has it, but declaring EN 16931 itself, the profile the XMP names (BT-24).
  const xml = new TextEncoder().encode(renderCii(doc, EN16931_ID));
  const fonts = await loadFonts(textsOf(doc));
  const file = new PdfFile();
  const catalog = file.reserve();
  const pages = file.reserve();
  const title = titleOf(doc);
  // The Info dictionary and the XMP must say the same: only what XML can carry.
  const description: Description = {
    title,
    author: xmlCarried(doc.seller.name),
    subject: xmlCarried(`${title} · ${doc.buyer.legalName}`),
    producer: PRODUCER,
    date: doc.issueDate,
  };

  await addPages(file, pages, layoutInvoice(doc, fonts), fonts);

  const invoice = await embeddedInvoice(file, xml, doc.issueDate);
  file.add(
    `<</Type /Catalog /Pages ${pages} /Lang (${LANGUAGE_TAGS[doc.language]}) /Metadata ${metadata(file, description)}` +
      ` /OutputIntents [${await outputIntent(file)}] /AF [${invoice}]` +
      ` /Names <</EmbeddedFiles <</Names [(${EMBEDDED_NAME}) ${invoice}]>>>> /PageMode /UseAttachments` +
      " /ViewerPreferences <</DisplayDocTitle true>>>>",
    catalog,
  );
  const digest = await crypto.subtle.digest("SHA-256", xml);
  const id = hexString(new Uint8Array(digest).slice(0, 16));
  return file.bytes(`/Root ${catalog} /Info ${info(file, description)} /ID [${id} ${id}]`);
}

/** Every text of the document, the parties' included (all strings in it: the layout adds only Latin). */
function textsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(textsOf);
}

// A face's program and ToUnicode map, compressed once an isolate.
const streams = new WeakMap<Face, Promise<[Uint8Array, Uint8Array]>>();

/**
 * The page tree `pages` of `layout`'s pages, with the fonts they use (only those faces are embedded, in a
 * fixed order): the invoice's and the reminder's PDFs alike.
 */
export async function addPages(
  file: PdfFile,
  pages: Ref,
  layout: { pages: string[]; fonts: Set<string> },
  fonts: Fonts,
): Promise<void> {
  const used: string[] = [];
  for (const weight of ["regular", "bold"] as Weight[])
    for (const [i, face] of fonts[weight].faces.entries()) {
      const name = fontName(weight, i);
      if (layout.fonts.has(name)) used.push(`/${name} ${await type0(file, face)}`);
    }
  const resources = `<</Font <<${used.join(" ")}>>>>`;
  const kids: Ref[] = [];
  for (const content of layout.pages) {
    const stream = file.addStream("/Filter /FlateDecode", await deflate(bytesOf(content)));
    kids.push(
      file.add(
        `<</Type /Page /Parent ${pages} /MediaBox [0 0 ${PAGE.width} ${PAGE.height}]` +
          ` /Resources ${resources} /Contents ${stream}>>`,
      ),
    );
  }
  file.add(`<</Type /Pages /Kids [${kids.join(" ")}] /Count ${kids.length}>>`, pages);
}

/**
 * A face as a Type 0 font: Identity-H (a code is a glyph id, two bytes), its TrueType program embedded
 * (CIDFontType2, glyph ids as CIDs), every glyph's width, and a ToUnicode map for text extraction.
 */
async function type0(file: PdfFile, face: Face): Promise<Ref> {
  if (!streams.has(face)) streams.set(face, Promise.all([deflate(face.program), deflate(bytesOf(toUnicode(face)))]));
  const [program, unicode] = await streams.get(face)!;
  const fontFile = file.addStream(`/Length1 ${face.program.length} /Filter /FlateDecode`, program);
  const descriptor = file.add(
    `<</Type /FontDescriptor /FontName /${face.name} /Flags 4 /FontBBox [${face.bbox.join(" ")}]` +
      ` /ItalicAngle ${face.italicAngle} /Ascent ${face.ascent} /Descent ${face.descent}` +
      ` /CapHeight ${face.capHeight} /StemV 80 /FontFile2 ${fontFile}>>`,
  );
  const cidFont = file.add(
    `<</Type /Font /Subtype /CIDFontType2 /BaseFont /${face.name}` +
      " /CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>>" +
      ` /FontDescriptor ${descriptor} /W [0 [${face.advances.join(" ")}]] /CIDToGIDMap /Identity>>`,
  );
  const map = file.addStream("/Filter /FlateDecode", unicode);
  return file.add(
    `<</Type /Font /Subtype /Type0 /BaseFont /${face.name} /Encoding /Identity-H` +
      ` /DescendantFonts [${cidFont}] /ToUnicode ${map}>>`,
  );
}

/** The face's ToUnicode CMap: each glyph id to the (first) character it shows. */
function toUnicode(face: Face): string {
  const unicodeOf = new Map<number, number>();
  for (const [codePoint, glyph] of face.glyphs) if (!unicodeOf.has(glyph)) unicodeOf.set(glyph, codePoint);
  const hex = (value: number) => value.toString(16).padStart(4, "0");
  const entries = [...unicodeOf]
    .sort(([a], [b]) => a - b)
    .map(([glyph, codePoint]) => `<${hex(glyph)}> <${hex(codePoint)}>`);
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const block = entries.slice(i, i + 100);
    blocks.push(`${block.length} beginbfchar\n${block.join("\n")}\nendbfchar`);
  }
  return [
    "/CIDInit /ProcSet findresource begin",
    "12 dict begin",
    "begincmap",
    "/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def",
    "/CMapName /Adobe-Identity-UCS def",
    "/CMapType 2 def",
    "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange",
    ...blocks,
    "endcmap",
    "CMapName currentdict /CMap defineresource pop",
    "end",
    "end",
  ].join("\n");
}
