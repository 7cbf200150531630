// `node scripts/sample-reminder.mjs [--pdf <file>]`: the README's picture of a reminder letter,
// docs/sample-reminder.png, page 1 of the level-2 reminder (`1. Mahnung`) of CONTRACT part 18's worked
// example (test/einvoice/reminders.mjs: EUR 1,000.00, default from 2025-06-21, issued 2025-07-10, a
// business buyer in German), rendered as the documents Worker renders it (renderReminderPdf) and drawn by
// poppler's pdftoppm at the invoice picture's 100 dpi. Deterministic like scripts/sample-invoice.mjs.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { renderReminderPdf, reminderInput } from "../test/einvoice/reminders.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PNG = join(ROOT, "docs/sample-reminder.png");
const DPI = 100;

const { values } = parseArgs({ options: { pdf: { type: "string" } } });
if (spawnSync("pdftoppm", ["-v"], { stdio: "ignore" }).error) {
  console.error("pdftoppm is missing: apt-get install -y poppler-utils (Homebrew: brew install poppler)");
  process.exit(1);
}

const pdf = await renderReminderPdf(reminderInput(2, "de", { number: "INV-2025-000123" }));
const dir = mkdtempSync(join(tmpdir(), "sample-reminder-"));
try {
  const file = join(dir, "sample-reminder.pdf");
  writeFileSync(file, pdf);
  if (values.pdf) copyFileSync(file, values.pdf);
  const out = join(dir, "page");
  const drawn = spawnSync("pdftoppm", ["-png", "-r", String(DPI), "-f", "1", "-l", "1", "-singlefile", file, out], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (drawn.status !== 0) throw new Error(`pdftoppm exited with ${drawn.status ?? drawn.signal}`);
  copyFileSync(`${out}.png`, PNG);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${relative(ROOT, PNG)}: page 1 at ${DPI} dpi, ${statSync(PNG).size} bytes (PDF ${pdf.length} bytes)`);
