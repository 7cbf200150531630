// The official e-invoice tools (EN 16931 and XRechnung 3.0 rules, run offline: `validate` for the XML,
// `check-pdf` for ZUGFeRD PDFs, `read-qr` for the QR codes a PDF's first page shows) are not part of
// this repository, which reads nothing outside itself: EINVOICE_VALIDATE, EINVOICE_CHECK_PDF and
// EINVOICE_READ_QR name them (.ci/run sets them). The tests that need one skip,
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

/**
 * The environment to run `validate` and `check-pdf` in from a test: each call is a JVM that lives
 * seconds (check-pdf starts one per file), where C1 alone and the serial GC spend 25-45 % less CPU on
 * the same validation than the JVM's defaults (BENCHMARKS.md, "How long npm test takes"). Not for what
 * a reader runs: the JVM announces the option on stderr.
 */
export const toolEnv = () => ({
  ...process.env,
  JAVA_TOOL_OPTIONS: process.env.JAVA_TOOL_OPTIONS ?? "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
});
export const pdfChecker = () => namedTool("EINVOICE_CHECK_PDF");
export const qrReader = () => namedTool("EINVOICE_READ_QR");

/**
 * What `read-qr` (the path qrReader found) reads off the first page of the PDF `file`, as a banking
 * app's camera would: `{ codes: [lines, ...] }`, each code's text split into lines (empty when it
 * found none), or `{ absent }` when the reader cannot run (poppler or zbar missing). The codes are told
 * apart by the line "BCD" that opens an EPC QR code; a page holds one code.
 */
export function readQr(reader, file) {
  const run = spawnSync(reader, [file], { encoding: "utf8" });
  if (run.status === 2 || run.error)
    return { absent: `read-qr cannot run: ${run.error?.message ?? run.stderr.trim()}` };
  if (run.status === 1) return { codes: [] };
  if (run.status !== 0) throw new Error(`read-qr failed (${run.status}): ${run.stderr}`);
  // zbarimg --raw ends each code with a line feed.
  const codes = [];
  for (const line of run.stdout.replace(/\n$/, "").split("\n")) {
    if (line === "BCD" || codes.length === 0) codes.push([]);
    codes.at(-1).push(line);
  }
  return { codes };
}

/** `{ path }` of a command on PATH (poppler's), or `{ absent }`. */
export function command(name) {
  const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
  return found ? { path: found } : { absent: `${name} is not installed (apt-get install poppler-utils)` };
}

/** Whether a missing tool fails the test rather than skips it. */
export const validatorRequired = () => process.env.CI === "true";
