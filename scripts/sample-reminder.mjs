// `node scripts/sample-reminder.mjs [--pdf <file>]`: docs/sample-reminder.png, page 1 of CONTRACT part
// 18's worked example's `1. Mahnung` (test/einvoice/reminders.mjs), drawn like scripts/sample-invoice.mjs.
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
