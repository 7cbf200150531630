// The official e-invoice tools (`validate`, `check-pdf`, `read-qr`), outside the repository: named by
// EINVOICE_VALIDATE, EINVOICE_CHECK_PDF, EINVOICE_READ_QR. Tests needing one (or poppler) skip with one
// line where it is not named, except under CI=true.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** `{ path }` of the tool an environment variable names, or `{ absent }`: why there is none. */
function namedTool(variable) {
  const configured = process.env[variable];
  if (!configured) return { absent: `${variable} is not set` };
  return existsSync(configured) ? { path: configured } : { absent: `${variable}=${configured} does not exist` };
}

export const einvoiceValidator = () => namedTool("EINVOICE_VALIDATE");

/** A short-lived JVM's environment for tests: C1 and serial GC (BENCHMARKS.md, "How long npm test takes"). */
export const toolEnv = () => ({
  ...process.env,
  JAVA_TOOL_OPTIONS: process.env.JAVA_TOOL_OPTIONS ?? "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
});
export const pdfChecker = () => namedTool("EINVOICE_CHECK_PDF");
export const qrReader = () => namedTool("EINVOICE_READ_QR");

/**
 * The QR codes on page 1 of `file`, as `{ codes: [lines, ...] }`, or `{ absent }` when the reader cannot
 * run; an EPC code opens with the line "BCD".
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
