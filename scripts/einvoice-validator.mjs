// The official e-invoice tools (EN 16931 and XRechnung 3.0 rules, run offline: `validate` for the XML,
// `check-pdf` for ZUGFeRD PDFs) are not part of this repository, which reads nothing outside itself:
// EINVOICE_VALIDATE and EINVOICE_CHECK_PDF name them (.ci/run sets both). The tests that need one skip,
// saying so in one line, where it is not named, except under CI=true, where it is required. So are
// poppler's pdftotext and pdfdetach, which the PDF tests read PDFs with.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** `{ path }` of the tool an environment variable names, or `{ absent }`: why there is none. */
function namedTool(variable) {
  const configured = process.env[variable];
  if (!configured) return { absent: `${variable} is not set` };
  return existsSync(configured) ? { path: configured } : { absent: `${variable}=${configured} does not exist` };
}

export const einvoiceValidator = () => namedTool("EINVOICE_VALIDATE");
export const pdfChecker = () => namedTool("EINVOICE_CHECK_PDF");

/** `{ path }` of a command on PATH (poppler's), or `{ absent }`. */
export function command(name) {
  const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
  return found ? { path: found } : { absent: `${name} is not installed (apt-get install poppler-utils)` };
}

/** Whether a missing tool fails the test rather than skips it. */
export const validatorRequired = () => process.env.CI === "true";
