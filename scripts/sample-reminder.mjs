// `node scripts/sample-reminder.mjs [--pdf <file>]`: docs/sample-reminder.png, page 1 of CONTRACT part
// 18's worked example's `1. Mahnung` (test/einvoice/reminders.mjs), drawn like scripts/sample-invoice.mjs.
import { statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { renderReminderPdf, reminderInput } from "../test/einvoice/reminders.mjs";
import { DPI, drawFirstPage, requirePdftoppm } from "./pdf-page.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PNG = join(ROOT, "docs/sample-reminder.png");

const { values } = parseArgs({ options: { pdf: { type: "string" } } });
requirePdftoppm();
const pdf = await renderReminderPdf(reminderInput(2, "de", { number: "INV-2025-000123" }));
drawFirstPage(pdf, PNG, values.pdf);
console.log(`${relative(ROOT, PNG)}: page 1 at ${DPI} dpi, ${statSync(PNG).size} bytes (PDF ${pdf.length} bytes)`);
