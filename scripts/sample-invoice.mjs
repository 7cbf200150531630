// `npm run sample:pdf [-- --out <png>] [--pdf <file>]`: page 1 of a fixed sample invoice
// (test/einvoice/fixtures.mjs) rendered by renderPdf and drawn by pdftoppm, deterministically: the
// README's docs/sample-invoice.png changes only when the layout does (`-- --out docs/sample-invoice.png`).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { issued } from "../test/einvoice/fixtures.mjs";
import { PROFILES } from "../test/einvoice/parties.mjs";
import { importSource } from "./import-source.mjs";

// 100 dpi: A4 as 827 × 1170 pixels, the footer's 7 pt still legible, the file about 150 KB.
const DPI = 100;

const { values } = parseArgs({ options: { pdf: { type: "string" }, out: { type: "string" } } });

const probe = spawnSync("pdftoppm", ["-v"], { stdio: "ignore" });
if (probe.error) {
  console.error("pdftoppm is missing: apt-get install -y poppler-utils (Homebrew: brew install poppler)");
  process.exit(1);
}

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

const dir = mkdtempSync(join(tmpdir(), "sample-invoice-"));
// Outside the project unless asked: a run never changes a tracked file by the way.
const PNG = values.out
  ? resolve(values.out)
  : join(mkdtempSync(join(tmpdir(), "sample-invoice-png-")), "sample-invoice.png");
try {
  const file = join(dir, "sample-invoice.pdf");
  writeFileSync(file, pdf);
  if (values.pdf) copyFileSync(file, values.pdf);
  // -singlefile: the name without a page number suffix; pdftoppm adds ".png".
  const out = join(dir, "page");
  const drawn = spawnSync("pdftoppm", ["-png", "-r", String(DPI), "-f", "1", "-l", "1", "-singlefile", file, out], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (drawn.status !== 0) throw new Error(`pdftoppm exited with ${drawn.status ?? drawn.signal}`);
  copyFileSync(`${out}.png`, PNG);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${PNG}: page 1 at ${DPI} dpi, ${statSync(PNG).size} bytes (PDF ${pdf.length} bytes)`);
