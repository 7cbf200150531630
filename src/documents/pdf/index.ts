// ZUGFeRD 2 / Factur-X, profile EN 16931 (docs/api.md part 13): a PDF/A-3 whose pages show the invoice
// (layout.ts) and which embeds its CII document, byte for byte the `cii` format's (renderCii).
// Deterministic: no clock and no random source. The dates are the invoice's issue date, the file
// identifier is a hash of the embedded XML, so the same invoice gives the same bytes.
import { renderCii } from "../cii";
import type { EInvoice } from "../model";
import { deflate } from "./flate";
import { FIRST_CODE, type Font, LAST_CODE, loadFonts } from "./font";
import { bytesOf, hexString, PdfFile, type Ref } from "./file";
import { layoutInvoice, PAGE } from "./layout";
import { type Description, EMBEDDED_NAME, embeddedInvoice, info, metadata, outputIntent } from "./pdfa";

const PRODUCER = "voucher-billing-api";

export async function renderPdf(doc: EInvoice): Promise<Uint8Array> {
  const xml = renderCii(doc);
  const fonts = await loadFonts();
  const file = new PdfFile();
  const catalog = file.reserve();
  const pages = file.reserve();
  const title = `${doc.typeCode === "381" ? "Stornorechnung" : "Rechnung"} ${doc.number}`;
  const description: Description = {
    title,
    author: doc.seller.name,
    subject: `${title} an ${doc.buyer.legalName}`,
    producer: PRODUCER,
    date: doc.issueDate,
  };

  const resources = `<</Font <</F1 ${await font(file, fonts.regular)} /F2 ${await font(file, fonts.bold)}>>>>`;
  const kids: Ref[] = [];
  for (const content of layoutInvoice(doc, fonts)) {
    const stream = file.addStream("/Filter /FlateDecode", await deflate(bytesOf(content)));
    kids.push(
      file.add(
        `<</Type /Page /Parent ${pages} /MediaBox [0 0 ${PAGE.width} ${PAGE.height}]` +
          ` /Resources ${resources} /Contents ${stream}>>`,
      ),
    );
  }
  file.add(`<</Type /Pages /Kids [${kids.join(" ")}] /Count ${kids.length}>>`, pages);

  const invoice = await embeddedInvoice(file, xml, doc.issueDate);
  file.add(
    `<</Type /Catalog /Pages ${pages} /Lang (de-DE) /Metadata ${metadata(file, description)}` +
      ` /OutputIntents [${await outputIntent(file)}] /AF [${invoice}]` +
      ` /Names <</EmbeddedFiles <</Names [(${EMBEDDED_NAME}) ${invoice}]>>>> /PageMode /UseAttachments` +
      " /ViewerPreferences <</DisplayDocTitle true>>>>",
    catalog,
  );
  const id = hexString(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(xml))).slice(0, 16),
  );
  return file.bytes(`/Root ${catalog} /Info ${info(file, description)} /ID [${id} ${id}]`);
}

// A font's program, compressed once an isolate.
const programs = new WeakMap<Font, Promise<Uint8Array>>();

/** A simple TrueType font in WinAnsiEncoding with its program embedded (font.ts). */
async function font(file: PdfFile, f: Font): Promise<Ref> {
  if (!programs.has(f)) programs.set(f, deflate(f.program));
  const program = file.addStream(`/Length1 ${f.program.length} /Filter /FlateDecode`, await programs.get(f)!);
  const descriptor = file.add(
    `<</Type /FontDescriptor /FontName /${f.name} /Flags 32 /FontBBox [${f.bbox.join(" ")}]` +
      ` /ItalicAngle ${f.italicAngle} /Ascent ${f.ascent} /Descent ${f.descent} /CapHeight ${f.capHeight}` +
      ` /StemV 80 /FontFile2 ${program}>>`,
  );
  return file.add(
    `<</Type /Font /Subtype /TrueType /BaseFont /${f.name} /FirstChar ${FIRST_CODE} /LastChar ${LAST_CODE}` +
      ` /Widths [${f.widths.join(" ")}] /Encoding /WinAnsiEncoding /FontDescriptor ${descriptor}>>`,
  );
}
