// `npm run sample:pdf [-- --out <png>] [--pdf <file>]`: page 1 of a fixed sample invoice
// (test/einvoice/fixtures.mjs) rendered by renderPdf and drawn by pdftoppm, deterministically: the
// README's docs/sample-invoice.png changes only when the layout does (`-- --out docs/sample-invoice.png`).
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { issued } from "../test/einvoice/fixtures.mjs";
import { PROFILES } from "../test/einvoice/parties.mjs";
import { importSource } from "./import-source.mjs";
import { DPI, drawFirstPage, requirePdftoppm } from "./pdf-page.mjs";

const { values } = parseArgs({ options: { pdf: { type: "string" }, out: { type: "string" } } });

requirePdftoppm();

// Voucher cards as an order's entries make them: one line each, category O (not taxable, § 3 Abs. 15
// UStG), and one holder's name long enough to wrap in the description column. The order id is a UUID,
// as the service's are.
const CARDS = [
  ["Jürgen Groß", 5000],
  ["Zoë Weiß-Schäfer", 2550],
  ["Anna & Ben Krüger", 10000],
  ["Käthe Löwe", 2500],
  ["Maximilian-Alexander Freiherr von Hohenlohe-Schillingsfürst zu Weißenstein", 15000],
  ["Sören Bäcker", 1000],
  ["Özlem Öztürk", 7500],
  ["René Dürr", 4000],
];
/** @type {import("../src/domain/einvoice").EInvoice} */
const { invoice } = issued("INV-2026-000042", {
  kind: "voucher",
  profile: PROFILES["DE-public"],
  method: "bank_transfer",
  reference: "Bestellung 2026/17",
  costCenter: "KST 4711",
  cards: CARDS,
});

const { renderPdf } = await importSource('export { renderPdf } from "./src/documents/pdf";');
const pdf = await renderPdf(invoice);

// Outside the project unless asked: a run never changes a tracked file by the way.
const PNG = values.out
  ? resolve(values.out)
  : join(mkdtempSync(join(tmpdir(), "sample-invoice-png-")), "sample-invoice.png");
drawFirstPage(pdf, PNG, values.pdf);
console.log(`${PNG}: page 1 at ${DPI} dpi, ${statSync(PNG).size} bytes (PDF ${pdf.length} bytes)`);
