// The reminder letter of docs/api.md part 18 as a PDF: the pages reminder-pages.ts lays out, in the
// invoice's document language, with the fonts, the file writer and the output intent of the invoice's
// PDF (index.ts, file.ts, pdfa.ts). It is no e-invoice: nothing is embedded or attached. It is a PDF/A-2b
// (ISO 19005-2, level B) all the same: a business letter the seller must keep for six years (§ 257 HGB)
// and the buyer files, so it carries its fonts, its colour space and its metadata, needs nothing from
// outside and shows the same in any reader for ever; part 2, not 3, because PDF/A-3 only adds embedded
// files, and a PDF/A-2 says by its very part that it has none. Deterministic: no clock, no random source
// (the dates are issued_on, the file identifier a hash of what the letter shows).
import type { ReminderFigures } from "../../domain/dunning-reminder";
import type { Buyer } from "../../domain/einvoice";
import { paymentReferenceOf } from "../../domain/payment-reference";
import { type SellerVariables, sellerOf } from "../../domain/seller";
import type { InvoiceRow } from "../../schemas/invoice";
import { xmlCarried, xmlText } from "../xml";
import { hexString, PdfFile } from "./file";
import { loadFonts } from "./font";
import { addPages, LANGUAGE_TAGS, PRODUCER } from "./index";
import { type Description, info, outputIntent } from "./pdfa";
import { layoutReminder, type ReminderLetter, reminderTitleOf } from "./reminder-pages";

/** The reminder's letter: the invoice as stored, the reminder's figures, the seller's CREDITOR_* variables. */
export async function renderReminderPdf(input: {
  invoice: InvoiceRow;
  reminder: ReminderFigures;
  seller: SellerVariables;
}): Promise<Uint8Array> {
  const letter = letterOf(input.invoice, input.reminder, input.seller);
  const fonts = await loadFonts(textsOf(letter));
  const file = new PdfFile();
  const catalog = file.reserve();
  const pages = file.reserve();
  const title = reminderTitleOf(letter);
  const description: Description = {
    title,
    author: xmlCarried(letter.seller.name),
    subject: xmlCarried(`${title} · ${letter.buyer.legalName}`),
    producer: PRODUCER,
    date: letter.reminder.issuedOn,
  };
  await addPages(file, pages, layoutReminder(letter, fonts), fonts);
  const xmp = file.addStream("/Type /Metadata /Subtype /XML", new TextEncoder().encode(xmpOf(description)));
  file.add(
    `<</Type /Catalog /Pages ${pages} /Lang (${LANGUAGE_TAGS[letter.language]}) /Metadata ${xmp}` +
      ` /OutputIntents [${await outputIntent(file)}] /ViewerPreferences <</DisplayDocTitle true>>>>`,
    catalog,
  );
  const shown = new TextEncoder().encode(JSON.stringify(letter));
  const id = hexString(new Uint8Array(await crypto.subtle.digest("SHA-256", shown)).slice(0, 16));
  return file.bytes(`/Root ${catalog} /Info ${info(file, description)} /ID [${id} ${id}]`);
}

/** What the letter shows, from the invoice as stored: its kept buyer, the seller as configured now. */
function letterOf(invoice: InvoiceRow, reminder: ReminderFigures, vars: SellerVariables): ReminderLetter {
  if (invoice.buyer === null) throw new Error(`${invoice.number} was issued without the buyer's data`);
  // Kept before docs/api.md part 14, a buyer lacks its later fields: it had none of them.
  const buyer = {
    leitwegId: null,
    directDebitBic: null,
    directDebitMandateSignedOn: null,
    documentLanguage: "de",
    ...(JSON.parse(invoice.buyer) as Partial<Buyer>),
  } as Buyer;
  return {
    language: buyer.documentLanguage,
    // The letter asks for a credit transfer, whatever the invoice's method: no SEPA creditor id needed.
    seller: sellerOf(vars, "bank_transfer"),
    buyer,
    invoice: {
      number: invoice.number,
      issueDate: invoice.bookedOn,
      dueDate: invoice.dueOn,
      reference: invoice.reference,
      grossCents: invoice.grossAmount ?? reminder.openCents,
    },
    paymentReference: paymentReferenceOf(invoice.number),
    reminder,
  };
}

/** Every text of the letter (the layout adds only Latin). */
function textsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(textsOf);
}

// The XMP packet: PDF/A-2b's identification and the Info dictionary's entries, nothing of Factur-X.
function xmpOf(d: Description): string {
  const date = `${d.date}T00:00:00+00:00`;
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">
<pdfaid:part>2</pdfaid:part>
<pdfaid:conformance>B</pdfaid:conformance>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(d.title)}</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq><rdf:li>${xmlText(d.author)}</rdf:li></rdf:Seq></dc:creator>
<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(d.subject)}</rdf:li></rdf:Alt></dc:description>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
<pdf:Producer>${xmlText(d.producer)}</pdf:Producer>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
<xmp:CreatorTool>${xmlText(d.producer)}</xmp:CreatorTool>
<xmp:CreateDate>${date}</xmp:CreateDate>
<xmp:ModifyDate>${date}</xmp:ModifyDate>
<xmp:MetadataDate>${date}</xmp:MetadataDate>
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}
