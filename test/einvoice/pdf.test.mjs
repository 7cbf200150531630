// The ZUGFeRD PDFs (src/documents/pdf) against the official check and an independent reader: every
// fixture of fixtures.mjs (each kind, category, payment and its credit note) and a 500-line invoice
// pass `check-pdf --en16931-only` (PDF/A-3 and Factur-X XMP, fonts embedded, the embedded
// factur-x.xml valid); the embedded XML is byte for byte renderCii's; and what poppler's pdftotext
// reads off the pages is what a German invoice shows, for the fixtures and for random line sets.
// check-pdf is named by EINVOICE_CHECK_PDF, poppler is found on PATH: each is skipped when absent,
// saying so, except under CI=true, where both are required (scripts/einvoice-validator.mjs).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import fc from "fast-check";
import { command, pdfChecker, validatorRequired } from "../../scripts/einvoice-validator.mjs";
import { importSource } from "../../scripts/import-source.mjs";
import { DOCUMENTS, voucherInvoiceOf } from "./fixtures.mjs";

const { renderPdf, renderCii, parsePercent, vatCents } = await importSource(
  [
    'export { renderPdf } from "./src/documents/pdf";',
    'export { renderCii } from "./src/documents/cii";',
    'export { parsePercent, vatCents } from "./src/domain/money";',
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

// --- German forms, written here again rather than imported, so that the PDF is checked against them.

const euro = (cents) => {
  const digits = String(cents).padStart(3, "0");
  return `${digits.slice(0, -2).replace(/\B(?=(\d{3})+$)/g, ".")},${digits.slice(-2)}`;
};
const day = (iso) => iso.split("-").reverse().join(".");
const literally = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The rows of the line table: position → { quantity, price, vat, net } as printed. */
function tableRows(text) {
  const rows = new Map();
  // pdftotext -layout may drop the spaces inside a short cell ("S 7 %" as "S7%"): they are not compared.
  const row = /^ *(\d+) {2,}.*? {2,}(\d[\d.]*) +(\d[\d.]*,\d\d) +(O|[SZ] ?[\d,]+ ?%) +(\d[\d.]*,\d\d) *$/;
  for (const line of text.split("\n")) {
    const match = row.exec(line);
    if (match) {
      assert.ok(!rows.has(Number(match[1])), `position ${match[1]} printed twice`);
      rows.set(Number(match[1]), {
        quantity: match[2],
        price: match[3],
        vat: match[4].replaceAll(" ", ""),
        net: match[5],
      });
    }
  }
  return rows;
}

function expectedRows(doc) {
  return new Map(
    doc.lines.map((l) => [
      l.position,
      {
        quantity: String(l.quantity).replace(/\B(?=(\d{3})+$)/g, "."),
        price: euro(l.unitPriceCents),
        vat: l.vatCategory === "O" ? "O" : `${l.vatCategory}${l.vatPercent.replace(".", ",")}%`,
        net: euro(l.netCents),
      },
    ]),
  );
}

/** The totals block: label → amount as printed. */
function totalsOf(text) {
  const total = (label) => new RegExp(`${label}\\s+(\\d[\\d.]*,\\d\\d) €`).exec(text)?.[1];
  return {
    net: total("Summe netto"),
    vat: total("Umsatzsteuer (?:\\(nicht steuerbar\\)|[\\d,]+ ?%)"),
    gross: total("Gesamtbetrag"),
  };
}

const expectedTotals = (doc) => ({ net: euro(doc.netCents), vat: euro(doc.vatCents), gross: euro(doc.grossCents) });

// --- The tests.

test("every fixture renders the same bytes each time and embeds its cii document byte for byte", async (t) => {
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
    assert.equal(readFileSync(saved, "utf8"), renderCii(doc), `${name}: factur-x.xml is the cii document`);
  }
});

test("the pages show what a German invoice shows", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  for (const [name, doc] of DOCUMENTS) {
    const pages = pagesOf(pdftotext, await write(name, doc));
    const text = pages.join("\f");
    const has = (what, expected = true) => assert.equal(text.includes(what), expected, `${name}: ${what}`);
    const creditNote = doc.typeCode === "381";
    has(`${creditNote ? "Stornorechnung" : "Rechnung"} ${doc.number}`);
    has(day(doc.issueDate));
    const labelled = (label, value) =>
      assert.match(text, new RegExp(`${label} +${literally(value)}`), `${name}: ${label}`);
    if (doc.dueDate) labelled("Fällig am", day(doc.dueDate));
    if (creditNote) has(`${doc.precedingInvoice.number} vom ${day(doc.precedingInvoice.issueDate)}`);
    if (doc.servicePeriod) has(day(doc.servicePeriod.start));
    labelled("Ihre Referenz", doc.buyerReference);
    if (doc.orderReference) labelled("Ihre Bestellung", doc.orderReference);
    if (doc.accountingReference) labelled("Kostenstelle", doc.accountingReference);
    labelled("Unser Auftrag", doc.salesOrderReference);
    // The parties: names with umlauts, ß and "&"; the seller's contact, bank and registration.
    for (const value of [doc.seller.name, doc.seller.street, doc.seller.contactName, doc.seller.contactPhone])
      has(value);
    for (const value of [doc.seller.contactEmail, doc.seller.registrationId, `USt-IdNr. ${doc.seller.vatId}`])
      has(value);
    has(doc.seller.iban.replace(/(.{4})(?=.)/g, "$1 "));
    has(doc.buyer.legalName);
    has(`${doc.buyer.postcode} ${doc.buyer.city}`);
    const category = doc.lines[0].vatCategory;
    if (doc.buyer.vatId) has(`USt-IdNr. ${doc.buyer.vatId}`, category !== "O");
    // Lines, totals, VAT breakdown with the exemption reason, payment.
    assert.deepEqual(tableRows(text), expectedRows(doc), `${name}: lines`);
    assert.deepEqual(totalsOf(text), expectedTotals(doc), `${name}: totals`);
    has("Umsatzsteueraufstellung");
    has("VATEX-EU-O", category === "O");
    has("Nullsatz", category === "Z");
    if (creditNote) has("keine Zahlung fällig");
    else if (doc.paymentMethod === "bank_transfer") has(`Bitte überweisen Sie ${euro(doc.grossCents)} €`);
    else {
      has("SEPA-Lastschrift");
      has(doc.buyer.directDebitMandateReference);
      has(doc.seller.sepaCreditorId);
    }
    assert.match(pages.at(-1), new RegExp(`${doc.number} · Seite ${pages.length} von ${pages.length}`), name);
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
  // A long name wraps inside its column (its words on two lines), letters outside Latin-1 lose their accents.
  assert.match(text, /42 +Voucher card Maximilian-Alexander Freiherr von und zu.*\n +Hohenzollern-Sigmaringen/);
  assert.match(text, /Voucher card Dvorák Lukasz Ødegård/);
});

test("property: the pages hold every line's quantity, price, VAT and amount, and the totals", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  const base = DOCUMENTS.find(([name]) => name === "production-S-transfer.380")[1];
  const vat = fc.constantFrom(["S", "19"], ["S", "7"], ["S", "7.5"], ["Z", "0"], ["O", "0"]);
  const line = fc.record({
    description: fc.string({ unit: fc.constantFrom(..."abcdefgh ÄÖÜäöüß€&()-/\\ 0123456789"), minLength: 1 }),
    quantity: fc.integer({ min: 1, max: 5000 }),
    unitPriceCents: fc.integer({ min: 0, max: 9_999_999 }),
  });
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 60 }), vat, async (drawn, [category, percent]) => {
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
      const doc = { ...base, lines, netCents, vatCents: vatTotal, grossCents: netCents + vatTotal };
      const text = pagesOf(pdftotext, await write(`random-${run++}`, doc)).join("\f");
      assert.deepEqual(tableRows(text), expectedRows(doc));
      assert.deepEqual(totalsOf(text), expectedTotals(doc));
    }),
    { numRuns: 40 },
  );
});

test("check-pdf --en16931-only holds for every fixture and the 500-line invoice", async (t) => {
  const checker = tool(t, pdfChecker());
  if (!checker) return;
  const files = [];
  for (const [name, doc] of DOCUMENTS) files.push(await write(`checked-${name}`, doc));
  files.push(await write("checked-long", longInvoice(500)));
  // check-pdf validates one file after another; two calls at once use both cores.
  const half = Math.ceil(files.length / 2);
  const runs = await Promise.all(
    [files.slice(0, half), files.slice(half)].map(
      (part) =>
        new Promise((resolve) => {
          const child = spawn(checker, ["--en16931-only", ...part]);
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
