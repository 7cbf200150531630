// The ZUGFeRD PDFs (src/documents/pdf) against the official check and an independent reader: the PDF
// share of fixtures.mjs (every VAT category of each buyer, German and English, both payments, credit
// notes), a 500-line and an odd invoice pass `check-pdf` (PDF/A-3 and Factur-X XMP, fonts embedded, the
// embedded factur-x.xml valid under the rules its BT-24 names and agreeing with the XMP's profile); the
// embedded XML is renderCii's declaring EN 16931; and what poppler's pdftotext reads off the pages is
// what the invoice shows, in its language, for the fixtures and for random line sets; a bank-transfer
// invoice's EPC QR code is what `read-qr` (a banking app's camera: page 1 at 200 dpi, zbar) reads.
// check-pdf is named by EINVOICE_CHECK_PDF, read-qr by EINVOICE_READ_QR, poppler is found on PATH: each
// is skipped when absent, saying so, except under CI=true, where all are required
// (scripts/einvoice-validator.mjs).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import fc from "fast-check";
import {
  command,
  pdfChecker,
  qrReader,
  readQr,
  toolEnv,
  validatorRequired,
} from "../../scripts/einvoice-validator.mjs";
import { importSource } from "../../scripts/import-source.mjs";
import { PDF_DOCUMENTS as DOCUMENTS, paymentReference, voucherInvoiceOf } from "./fixtures.mjs";

const { renderPdf, renderCii, parsePercent, vatCents, formatCents } = await importSource(
  [
    'export { renderPdf } from "./src/documents/pdf";',
    'export { renderCii } from "./src/documents/cii";',
    'export { formatCents, parsePercent, vatCents } from "./src/domain/money";',
  ].join("\n"),
);

const dir = mkdtempSync(join(tmpdir(), "zugferd-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The tool's path, or the test skipped (failed under CI=true) with the reason. */
function tool(t, found) {
  if (!found.absent) return found.path;
  assert.ok(!validatorRequired(), `required in CI, but absent: ${found.absent}`);
  t.skip(found.absent);
  return null;
}

async function write(name, doc) {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, await renderPdf(doc));
  return file;
}

/** What pdftotext reads off the pages, one string a page. */
function pagesOf(pdftotext, file) {
  const run = spawnSync(pdftotext, ["-layout", "-enc", "UTF-8", file, "-"], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.split("\f").slice(0, -1);
}

// --- The forms of each language, written here again rather than imported, so that the PDF is checked
// against them. A credit note's amounts are negative.

const FORMS = {
  de: { thousands: ".", decimal: ",", day: (iso) => iso.split("-").reverse().join(".") },
  en: {
    thousands: ",",
    decimal: ".",
    day: (iso) => {
      const [y, m, d] = iso.split("-");
      const months = "January February March April May June July August September October November December";
      return `${Number(d)} ${months.split(" ")[Number(m) - 1]} ${y}`;
    },
  },
};
const grouped = (digits, language) => digits.replace(/\B(?=(\d{3})+$)/g, FORMS[language].thousands);
const amount = (cents, language = "de", negative = false) => {
  const digits = String(cents).padStart(3, "0");
  const text = `${grouped(digits.slice(0, -2), language)}${FORMS[language].decimal}${digits.slice(-2)}`;
  return negative && cents > 0 ? `-${text}` : text;
};
const literally = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** An IBAN or RF reference as printed: in groups of four. */
const groupsOfFour = (text) => text.replace(/(.{4})(?=.)/g, "$1 ");

/** The words each language prints (docs/api.md part 14), as a reader expects them. */
const WORDS = {
  de: {
    title: { 380: "Rechnung", 381: "Stornorechnung" },
    due: "Fällig am",
    supplyDate: "Leistungsdatum",
    supplyPeriod: "Leistungszeitraum",
    customer: "Kundennummer",
    order: "Ihre Bestellung",
    costCenter: "Kostenstelle",
    salesOrder: "Unser Auftrag",
    buyerReference: "Ihre Referenz",
    leitwegId: "Leitweg-ID",
    of: "vom",
    net: "Summe netto",
    gross: "Gesamtbetrag",
    vat: "Umsatzsteuer",
    breakdown: "Umsatzsteueraufstellung",
    exemption: "Befreiungsgrund",
    vatId: "USt-IdNr.",
    taxNumber: "Steuernummer",
    directors: "Geschäftsführung",
    page: (n, m) => `Seite ${n} von ${m}`,
    continued: "(Fortsetzung)",
    header: /Pos\. +Beschreibung +Menge +Einzelpreis € +USt\. +Betrag €/,
    transfer: (gross) => `Bitte überweisen Sie ${gross} €`,
    debit: "SEPA-Lastschrift",
    remittance: "Verwendungszweck",
    scan: "Mit der Banking-App scannen",
    nothingDue: "keine Zahlung fällig",
    categories: {
      S: "S – Normalsatz",
      O: "O – nicht steuerbar",
      K: "K – innergemeinschaftliche Lieferung",
      AE: "AE – Steuerschuldnerschaft des Leistungsempfängers",
      G: "G – Ausfuhrlieferung",
    },
  },
  en: {
    title: { 380: "Invoice", 381: "Cancellation invoice" },
    due: "Due on",
    supplyDate: "Date of supply",
    supplyPeriod: "Period of supply",
    customer: "Customer number",
    order: "Your order",
    costCenter: "Cost center",
    salesOrder: "Our order",
    buyerReference: "Your reference",
    leitwegId: "Leitweg-ID",
    of: "of",
    net: "Total net",
    gross: "Total",
    vat: "VAT",
    breakdown: "VAT breakdown",
    exemption: "Exemption reason",
    vatId: "VAT ID",
    taxNumber: "Tax number",
    directors: "Managing directors",
    page: (n, m) => `Page ${n} of ${m}`,
    continued: "(continued)",
    header: /No\. +Description +Qty +Unit price € +VAT +Amount €/,
    transfer: (gross) => `Please transfer ${gross} €`,
    debit: "SEPA direct debit",
    remittance: "Reference",
    scan: "Scan with your banking app",
    nothingDue: "no payment is due",
    categories: {
      S: "S – standard rate",
      O: "O – not subject to VAT",
      K: "K – intra-community supply",
      AE: "AE – reverse charge",
      G: "G – export",
    },
  },
};

/**
 * The rows of the line table as printed: position → { description, quantity, price, vat, net }. A
 * description goes on over the lines below its row until a blank line or the next row; its whitespace
 * is not compared (a wrapped line ends where a space was).
 */
function tableRows(text) {
  const rows = new Map();
  const number = "-?\\d[\\d.,]*[.,]\\d\\d";
  // pdftotext -layout may drop the spaces inside a short cell ("S 7 %" as "S7%"): they are not compared.
  const row = new RegExp(
    `^ *(\\d+) {2,}(.*?) {2,}(\\d[\\d.,]*) +(${number}) +(O|(?:S|K|AE|G) ?[\\d.,]+ ?%) +(${number}) *$`,
  );
  let current = null;
  for (const line of text.split("\n")) {
    const match = row.exec(line);
    if (match) {
      assert.ok(!rows.has(Number(match[1])), `position ${match[1]} printed twice`);
      current = {
        description: unspaced(match[2]),
        quantity: match[3],
        price: match[4],
        vat: match[5].replaceAll(" ", ""),
        net: match[6],
      };
      rows.set(Number(match[1]), current);
    } else if (current && /^ {4,}\S/.test(line)) current.description += unspaced(line);
    else current = null;
  }
  return rows;
}

const unspaced = (text) => text.replace(/\s+/g, "");

function expectedRows(doc) {
  const { language = "de" } = doc;
  const negative = doc.typeCode === "381";
  return new Map(
    doc.lines.map((l) => [
      l.position,
      {
        description: unspaced(l.description.normalize("NFC")),
        quantity: grouped(String(l.quantity), language),
        price: amount(l.unitPriceCents, language, negative),
        vat: l.vatCategory === "O" ? "O" : `${l.vatCategory}${l.vatPercent.replace(".", FORMS[language].decimal)}%`,
        net: amount(l.netCents, language, negative),
      },
    ]),
  );
}

/** The totals block: label → amount as printed. */
function totalsOf(text, language = "de") {
  const words = WORDS[language];
  const total = (label) => new RegExp(`${label}\\s+(-?\\d[\\d.,]*[.,]\\d\\d) €`).exec(text)?.[1];
  return {
    net: total(words.net),
    vat: total(`${words.vat} (?:\\([^)]*\\)|[\\d.,]+ ?%)`),
    gross: total(`\\n\\s*${words.gross}`),
  };
}

const expectedTotals = (doc) => {
  const negative = doc.typeCode === "381";
  const { language = "de" } = doc;
  return {
    net: amount(doc.netCents, language, negative),
    vat: amount(doc.vatCents, language, negative),
    gross: amount(doc.grossCents, language, negative),
  };
};

// --- The tests.

test("every fixture renders the same bytes each time and embeds its cii document, declaring EN 16931", async (t) => {
  const pdfdetach = tool(t, command("pdfdetach"));
  for (const [name, doc] of DOCUMENTS) {
    const pdf = await renderPdf(doc);
    assert.deepEqual(await renderPdf(structuredClone(doc)), pdf, `${name}: same input, same bytes`);
    if (!pdfdetach) continue;
    const file = await write(name, doc);
    const listed = spawnSync(pdfdetach, ["-list", file], { encoding: "utf8" }).stdout;
    assert.match(listed, /^1 embedded files\n1: factur-x\.xml\n$/, name);
    const saved = join(dir, `${name}.factur-x.xml`);
    assert.equal(spawnSync(pdfdetach, ["-save", "1", "-o", saved, file]).status, 0, name);
    // The `cii` document, but with BT-24 urn:cen.eu:en16931:2017, the profile the XMP declares.
    const xrechnung = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";
    const expected = renderCii(doc).replace(
      `<ram:ID>${xrechnung}</ram:ID>`,
      "<ram:ID>urn:cen.eu:en16931:2017</ram:ID>",
    );
    assert.notEqual(expected, renderCii(doc), name);
    assert.equal(readFileSync(saved, "utf8"), expected, `${name}: factur-x.xml is the cii document, BT-24 EN 16931`);
    const xmp = readFileSync(file, "latin1");
    assert.match(xmp, /<fx:ConformanceLevel>EN 16931<\/fx:ConformanceLevel>/, name);
    assert.match(xmp, new RegExp(`/Lang \\(${doc.language === "de" ? "de-DE" : "en-GB"}\\)`), name);
  }
});

test("the pages show what the invoice shows, in its language", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  for (const [name, doc] of DOCUMENTS) {
    const { language } = doc;
    const words = WORDS[language];
    const { day } = FORMS[language];
    const pages = pagesOf(pdftotext, await write(name, doc));
    const text = pages.join("\f");
    const has = (what, expected = true) => assert.equal(text.includes(what), expected, `${name}: ${what}`);
    const creditNote = doc.typeCode === "381";
    has(`${words.title[doc.typeCode]} ${doc.number}`);
    has(day(doc.issueDate));
    const labelled = (label, value) =>
      assert.match(text, new RegExp(`${literally(label)} +${literally(value)}`), `${name}: ${label}`);
    if (doc.dueDate) labelled(words.due, day(doc.dueDate));
    if (creditNote) has(`${doc.precedingInvoice.number} ${words.of} ${day(doc.precedingInvoice.issueDate)}`);
    const category = doc.lines[0].vatCategory;
    // The date of supply (§ 14 UStG): the period, or for a voucher sold at a VAT rate, the invoice's date.
    const { servicePeriod: period } = doc;
    if (period && period.start === period.end) labelled(words.supplyDate, day(period.start));
    else if (period) labelled(words.supplyPeriod, `${day(period.start)} – ${day(period.end)}`);
    else has(words.supplyDate, category !== "O");
    // (A credit note's supply is its invoice's: the date of the invoice it cancels.)
    if (!period && category !== "O") labelled(words.supplyDate, day(doc.precedingInvoice?.issueDate ?? doc.issueDate));
    // The buyer's Leitweg-ID and own reference have rows; so have BT-10's fallbacks (order reference,
    // customer number).
    has(words.leitwegId, doc.buyer.leitwegId !== null);
    if (doc.buyer.leitwegId) labelled(words.leitwegId, doc.buyer.leitwegId);
    if (doc.buyer.buyerReference) labelled(words.buyerReference, doc.buyer.buyerReference);
    labelled(words.customer, doc.buyer.customerId);
    if (doc.orderReference) labelled(words.order, doc.orderReference);
    if (doc.accountingReference) labelled(words.costCenter, doc.accountingReference);
    labelled(words.salesOrder, doc.salesOrderReference);
    // The parties: names with umlauts, ß and "&"; the seller's contact, bank, tax ids, register and
    // managing directors, on every page.
    for (const value of [doc.seller.street, doc.seller.contactName, doc.seller.contactPhone]) has(value);
    // (A name too long for the letterhead's line wraps there.)
    assert.ok(unspaced(text).includes(unspaced(doc.seller.name)), `${name}: ${doc.seller.name}`);
    for (const page of pages) {
      for (const value of [
        doc.seller.contactEmail,
        doc.seller.registrationId,
        `${words.vatId} ${doc.seller.vatId}`,
        `${words.directors}: ${doc.seller.managingDirectors}`,
      ])
        assert.ok(page.includes(value), `${name}: ${value} on every page`);
    }
    has(groupsOfFour(doc.seller.iban));
    if (doc.seller.bic) has(`BIC ${doc.seller.bic}`);
    if (doc.seller.taxNumber) has(`${words.taxNumber} ${doc.seller.taxNumber}`);
    has(doc.buyer.legalName);
    has(doc.buyer.street);
    has(`${doc.buyer.postcode} ${doc.buyer.city}`);
    if (doc.buyer.vatId) has(`${words.vatId} ${doc.buyer.vatId}`, category !== "O");
    // Lines, totals, VAT breakdown with the exemption reason, payment.
    assert.deepEqual(tableRows(text), expectedRows(doc), `${name}: lines`);
    assert.deepEqual(totalsOf(text, language), expectedTotals(doc), `${name}: totals`);
    has(words.breakdown);
    const rate = category === "O" ? "–" : `${doc.lines[0].vatPercent.replace(".", FORMS[language].decimal)} %`;
    const negative = creditNote;
    // (pdftotext may print "7 %" as "7%".)
    const cells = [
      words.categories[category],
      rate,
      amount(doc.netCents, language, negative),
      amount(doc.vatCents, language, negative),
    ]
      .map(literally)
      .join(" +")
      .replace(" %", " ?%");
    assert.match(text, new RegExp(cells), `${name}: VAT breakdown`);
    // The exemption reason of every exempt category, with its code; none for S.
    has(`${words.exemption} (VATEX-EU-`, category !== "S");
    // The payment: a transfer quotes the RF reference (docs/api.md part 15), in groups of four, beside
    // the QR code's label; a direct debit the invoice number (part 16 decides it); a credit note nothing.
    const transfer = !creditNote && doc.paymentMethod === "bank_transfer";
    if (creditNote) has(words.nothingDue);
    else if (transfer) {
      has(words.transfer(amount(doc.grossCents, language)));
      labelled(words.remittance, groupsOfFour(paymentReference(doc.number)));
    } else {
      has(words.debit);
      has(doc.buyer.directDebitMandateReference);
      has(doc.seller.sepaCreditorId);
      labelled(words.remittance, doc.number);
    }
    has(words.remittance, !creditNote);
    has(words.scan, transfer);
    assert.match(pages.at(-1), new RegExp(`${doc.number} · ${words.page(pages.length, pages.length)}`), name);
  }
});

/**
 * The lines of a bank-transfer invoice's EPC QR code (EPC069-12 version 002, docs/api.md part 15): BCD,
 * 002, 1 (UTF-8), SCT, the seller's BIC (empty without one), its name cut to 70 characters, its IBAN,
 * the gross amount as EUR<amount>, no purpose, the RF reference as structured remittance, and nothing
 * after it (no unstructured text).
 */
const epcLines = (doc) => [
  "BCD",
  "002",
  "1",
  "SCT",
  doc.seller.bic ?? "",
  [...doc.seller.name].slice(0, 70).join("").trimEnd(),
  doc.seller.iban,
  `EUR${formatCents(doc.grossCents)}`,
  "",
  paymentReference(doc.number),
];

test("a bank-transfer invoice's EPC QR code reads back from page 1; credit notes and direct debits have none", async (t) => {
  const reader = tool(t, qrReader());
  if (!reader) return;
  // The fixtures include a seller whose name is longer than the code's 70 characters (the pages print it
  // whole: the test above), and one without BIC.
  const longName = DOCUMENTS.find(([name]) => name === "DE-voucher-0-transfer-long-name.380")[1];
  assert.ok([...longName.seller.name].length > 70, longName.seller.name);
  assert.equal(DOCUMENTS.find(([name]) => name === "DE-voucher-0-transfer-no-bic.380")[1].seller.bic, null);
  for (const [name, doc] of DOCUMENTS) {
    const file = await write(`qr-${name}`, doc);
    const read = readQr(reader, file);
    if (read.absent && !tool(t, read)) return;
    const transfer = doc.typeCode === "380" && doc.paymentMethod === "bank_transfer";
    assert.deepEqual(read.codes, transfer ? [epcLines(doc)] : [], `${name}: the QR codes on page 1`);
    // Drawn in the page's content, not an image.
    assert.doesNotMatch(readFileSync(file, "latin1"), /\/Subtype ?\/Image/, name);
  }
});

/** A voucher invoice of `count` lines, some names long enough to wrap, one with letters outside Latin-1. */
function longInvoice(count) {
  const names = { 41: "Maximilian-Alexander Freiherr von und zu Hohenzollern-Sigmaringen-Weißenfels Größenwahn" };
  names[42] = "Dvořák Łukasz Ødegård";
  const cards = Array.from({ length: count }, (_, i) => [
    names[i] ?? `Jürgen Groß ${i + 1}`,
    500 + ((i * 7919) % 20000),
  ]);
  return voucherInvoiceOf("INV-2026-000500", cards);
}

test("500 lines page cleanly: every line once, the table's header and the page count on every page", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  const doc = longInvoice(500);
  const pages = pagesOf(pdftotext, await write("long", doc));
  assert.ok(pages.length > 10, `${pages.length} pages`);
  const text = pages.join("\f");
  assert.deepEqual(tableRows(text), expectedRows(doc));
  assert.deepEqual(totalsOf(text), expectedTotals(doc));
  pages.forEach((page, i) => {
    assert.match(page, new RegExp(`INV-2026-000500 · Seite ${i + 1} von ${pages.length}`));
    if (tableRows(page).size > 0) assert.match(page, /Pos\. +Beschreibung +Menge +Einzelpreis € +USt\. +Betrag €/);
    if (i > 0) assert.match(page, /Rechnung INV-2026-000500 \(Fortsetzung\)/);
  });
  // A long name wraps inside its column (its words on two lines, none split); letters beyond Latin-1 print too.
  assert.match(
    text,
    /42 +Gutscheinkarte Maximilian-Alexander Freiherr von und zu .*\n +Hohenzollern-Sigmaringen-Weißenfels Größenwahn\n/,
  );
  assert.match(text, /Gutscheinkarte Dvořák Łukasz Ødegård/);
});

test("the totals never open a page alone: the last line goes with them, whatever the number of lines", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  for (let count = 25; count <= 140; count++) {
    const doc = voucherInvoiceOf(
      "INV-2026-000140",
      Array.from({ length: count }, (_, i) => [`Karte ${i + 1}`, 1000]),
    );
    const page = pagesOf(pdftotext, await write(`totals-${count}`, doc)).find((p) => p.includes("Summe netto"));
    assert.ok(tableRows(page).has(count), `${count} lines: the page of the totals shows the last line`);
  }
});

test("property: the pages hold every line's quantity, price, VAT and amount, and the totals", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  const base = DOCUMENTS.find(([name]) => name === "DE-public-production-goods-debit.380")[1];
  const english = DOCUMENTS.find(([name]) => name === "FR-shipping-services-transfer.381")[1];
  const vat = fc.constantFrom(["S", "19"], ["S", "7"], ["S", "7.5"], ["K", "0"], ["G", "0"], ["AE", "0"], ["O", "0"]);
  const line = fc.record({
    // Up to 120 characters (wrapping; a word too long for the column is set smaller), in the scripts the faces cover.
    description: fc.string({
      unit: fc.constantFrom(..."abcdefghxyz ÄÖÜäöüß€&()-/\\ 0123456789 ŁłřŠšőΩαβγЖжщ"),
      minLength: 1,
      maxLength: 120,
    }),
    quantity: fc.integer({ min: 1, max: 5000 }),
    unitPriceCents: fc.integer({ min: 0, max: 9_999_999 }),
  });
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { minLength: 1, maxLength: 60 }),
      vat,
      fc.boolean(),
      async (drawn, [category, percent], en) => {
        const lines = drawn.map((l, i) => ({
          ...l,
          description: l.description.trim() || "x",
          position: i + 1,
          netCents: l.quantity * l.unitPriceCents,
          vatCategory: category,
          vatPercent: percent,
        }));
        const netCents = lines.reduce((sum, l) => sum + l.netCents, 0);
        const vatTotal = vatCents(netCents, parsePercent(percent));
        // A German invoice, or an English credit note (negative amounts).
        const doc = { ...(en ? english : base), lines, netCents, vatCents: vatTotal, grossCents: netCents + vatTotal };
        const text = pagesOf(pdftotext, await write(`random-${run++}`, doc)).join("\f");
        assert.deepEqual(tableRows(text), expectedRows(doc));
        assert.deepEqual(totalsOf(text, doc.language), expectedTotals(doc));
      },
    ),
    { numRuns: 40 },
  );
});

/**
 * An invoice whose customer-given text is as long and as odd as the API lets it be: a Greek buyer
 * (name, street and city in Greek script, 200 and 100 characters), a 255-character reference with no
 * space to break at, Polish, Czech and Cyrillic names, control and format characters, and characters
 * no face has.
 */
function oddInvoice() {
  const base = DOCUMENTS.find(([name]) => name === "DE-public-production-goods-debit.380")[1];
  const long = (text, length) => text.repeat(Math.ceil(length / text.length)).slice(0, length);
  return {
    ...base,
    seller: {
      ...base.seller,
      taxNumber: "143/123/45678",
      registrationId: long("Amtsgericht München HRA 123456, Komplementärin ", 200),
    },
    number: "INV-2026-000777",
    orderReference: long("REF-", 255),
    accountingReference: long("Kostenstelle Süd ", 100),
    buyer: {
      ...base.buyer,
      buyerReference: long("Referenz ", 200),
      legalName: long("Ελληνικά Τρόφιμα Ανώνυμη Εταιρεία ", 200),
      street: long("Λεωφόρος Βασιλίσσης Σοφίας ", 200),
      postcode: "115 26",
      city: long("Αθήνα ", 100),
      countryCode: "GR",
      vatId: "EL123456789",
    },
    lines: [
      { ...base.lines[0], description: `Shipping to Łódź, Dvořák & Жуков (\\ ) \u0007\u202e ✓ 😀 ${long("x", 90)}` },
    ],
  };
}

test("customer text as long and odd as the API allows prints in place, in its own script", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  const doc = oddInvoice();
  const file = await write("odd", doc);
  const text = pagesOf(pdftotext, file).join("\f");
  // The address block (left) and the particulars (right) of page 1, each read on its own.
  const region = (x, width) => {
    const args = ["-layout", "-f", "1", "-l", "1", "-x", String(x), "-y", "0", "-W", String(width), "-H", "560"];
    return unspaced(spawnSync(pdftotext, [...args, file, "-"], { encoding: "utf8" }).stdout);
  };
  const [address, particulars] = [region(0, 295), region(295, 300)];
  for (const value of [doc.buyer.legalName, doc.buyer.street, doc.buyer.city])
    assert.ok(address.includes(unspaced(value)), value);
  for (const value of [doc.orderReference, doc.buyer.buyerReference, doc.accountingReference])
    assert.ok(particulars.includes(unspaced(value)), value);
  assert.match(text, /Griechenland/);
  // A 200-character register entry is what the footer's six lines cut, never the seller's tax ids.
  assert.match(text, new RegExp(`USt-IdNr\\. ${doc.seller.vatId}`));
  assert.match(text, new RegExp(`Steuernummer ${literally(doc.seller.taxNumber)}`));
  assert.match(text, /USt-IdNr\. EL123456789/);
  // Controls and format characters print as nothing, characters no face has as "?".
  const printed = doc.lines[0].description.replace(/\p{Cc}|\p{Cf}/gu, "").replace(/✓|😀/gu, "?");
  assert.deepEqual(tableRows(text), expectedRows({ lines: [{ ...doc.lines[0], description: printed }] }));
});

/** Every word pdftotext -bbox reads off the pages. */
function wordsOf(pdftotext, file) {
  const run = spawnSync(pdftotext, ["-bbox", file, "-"], { encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(run.status, 0, run.stderr);
  return new Set([...run.stdout.matchAll(/<word [^>]*>([^<]*)</g)].map(([, word]) => decodeEntities(word)));
}

const decodeEntities = (text) =>
  text.replace(/&(lt|gt|quot|amp|apos);/g, (_, name) => ({ lt: "<", gt: ">", quot: '"', amp: "&", apos: "'" })[name]);

test("no word or identifier is split across lines: long names wrap at spaces, a longer word is set smaller", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  const odd = oddInvoice();
  const long = longInvoice(60);
  for (const [doc, texts] of [
    [
      odd,
      [
        odd.buyer.legalName,
        odd.buyer.street,
        odd.buyer.city,
        odd.orderReference,
        odd.accountingReference,
        odd.buyer.buyerReference,
        odd.salesOrderReference,
        odd.number,
      ],
    ],
    [long, long.lines.map((line) => line.description)],
  ]) {
    const words = wordsOf(pdftotext, await write(`words-${doc.number}`, doc));
    for (const word of texts.flatMap((text) => text.split(/\s+/)).filter(Boolean))
      assert.ok(words.has(word), `${doc.number}: "${word}" is not one word on the page`);
  }
});

/** Words of each page whose boxes overlap (pdftotext -bbox), a box shrunk to the middle of its line. */
function collisions(pdftotext, file) {
  const run = spawnSync(pdftotext, ["-bbox", file, "-"], { encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(run.status, 0, run.stderr);
  const found = [];
  run.stdout
    .split("<page ")
    .slice(1)
    .forEach((page, p) => {
      const words = [
        ...page.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</g),
      ].map(([, x0, y0, x1, y1, word]) => {
        const [top, bottom] = [Number(y0), Number(y1)];
        const inset = (bottom - top) * 0.3;
        return { x0: Number(x0) + 0.3, x1: Number(x1) - 0.3, y0: top + inset, y1: bottom - inset, word };
      });
      for (let i = 0; i < words.length; i++)
        for (let j = i + 1; j < words.length; j++) {
          const [a, b] = [words[i], words[j]];
          if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1)
            found.push(`page ${p + 1}: ${a.word} / ${b.word}`);
        }
    });
  return found;
}

test("no two words on a page overlap: fixtures, the 500-line and the odd invoice", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  const files = [await write("overlap-long", longInvoice(500)), await write("overlap-odd", oddInvoice())];
  for (const [name, doc] of DOCUMENTS) files.push(await write(`overlap-${name}`, doc));
  for (const file of files) assert.deepEqual(collisions(pdftotext, file), [], file);
});

test("check-pdf holds for every fixture, the 500-line and the odd invoice", async (t) => {
  const checker = tool(t, pdfChecker());
  if (!checker) return;
  const files = [];
  for (const [name, doc] of DOCUMENTS) files.push(await write(`checked-${name}`, doc));
  files.push(await write("checked-long", longInvoice(500)), await write("checked-odd", oddInvoice()));
  // check-pdf validates one file after another; two calls at once use both cores.
  const half = Math.ceil(files.length / 2);
  const runs = await Promise.all(
    [files.slice(0, half), files.slice(half)].map(
      (part) =>
        new Promise((resolve) => {
          // No flag: the embedded XML is checked by the rules its BT-24 names, and against the XMP's profile.
          const child = spawn(checker, part, { env: toolEnv() });
          let output = "";
          for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => (output += chunk));
          child.on("close", (status) => resolve({ status, output: output.replaceAll(`${dir}/`, "") }));
        }),
    ),
  );
  const output = runs.map((r) => r.output).join("");
  assert.ok(
    runs.every((r) => r.status === 0),
    `check-pdf refused PDFs:\n${output}`,
  );
  assert.equal(output.match(/^holds /gm)?.length, files.length, output);
});
