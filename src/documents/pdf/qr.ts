// The EPC QR code ("GiroCode", EPC069-12 version 002) of a credit-transfer invoice (docs/api.md part
// 15): what a banking app reads to fill in the transfer, and how the page draws it, as filled
// rectangles in the content stream (black on a white square with its quiet zone; no image, no
// transparency: nothing PDF/A asks more of).
//
// The encoder is lean-qr (npm), not ours: the symbol (Reed-Solomon blocks, the eight masks and their
// penalty scores, format and version bits) is easy to get subtly wrong, and lean-qr is small (about
// 3.6 KB gzipped in the bundle), without dependencies, eval or Node APIs (TextEncoder only), typed and
// kept up, and deterministic (the mask is chosen by its penalty score: same text, same modules). It
// lets us say how the text is encoded, which decides the choice: one byte segment, and before it, when
// the text is not plain ASCII, the ECI designator 26 (UTF-8). Without it a reader guesses the bytes'
// character set (ISO/IEC 18004 makes ISO 8859-1 the default): zbar reads the UTF-8 of "Süd" as Big5,
// some banking apps as Latin-1 ("SÃ¼d"). `qr` (formerly @paulmillr/qr), qrcode-generator and uqr
// write no ECI (and qrcode-generator is twice the size).
import { correction, generate, mode } from "lean-qr";
import { formatCents } from "../../domain/money";
import type { Payment } from "../semantic";

/** EPC069-12: the whole payload at most 331 bytes, the name at most 70 characters. */
const MAX_BYTES = 331;
const MAX_NAME = 70;
/** The amount a code may carry: EUR 0.01 to 999999999.99. */
const MAX_CENTS = 99_999_999_999;
/** ISO/IEC 18004's quiet zone: four modules on every side. */
const QUIET = 4;

/**
 * The code's text, its lines: BCD, version 002, character set 1 (UTF-8), SCT, the BIC (empty without
 * one), the account holder's name (cut to 70 characters), the IBAN, `EUR<amount>`, no purpose, the RF
 * reference as structured remittance (line 10); no unstructured text, so nothing after line 10.
 */
export function epcPayload(payment: Extract<Payment, { code: "58" }>, grossCents: number): string {
  const amount = grossCents >= 1 && grossCents <= MAX_CENTS ? `EUR${formatCents(grossCents)}` : "";
  const fixed = (name: string) =>
    [
      "BCD",
      "002",
      "1",
      "SCT",
      payment.bic?.trim() ?? "",
      name,
      payment.iban.replaceAll(" ", ""),
      amount,
      "",
      payment.remittance,
    ].join("\n");
  // One line of a name: no line breaks or other controls in it (the lines are the code's fields).
  let name = [...payment.accountName.replace(/[\s\p{Cc}]+/gu, " ").trim()].slice(0, MAX_NAME);
  const bytes = new TextEncoder();
  while (name.length > 0 && bytes.encode(fixed(name.join("").trimEnd())).length > MAX_BYTES) name = name.slice(0, -1);
  return fixed(name.join("").trimEnd());
}

/**
 * PDF operators drawing `text` as a QR code (error correction level M, as EPC recommends) whose
 * modules fill the square of side about `side` at (left, top), and the white quiet zone around it
 * (outside that square). Returns the operators and the quiet zone's width.
 */
export function qrCode(text: string, left: number, top: number, side: number): { ops: string; quiet: number } {
  const ascii = [...text].every((c) => c.charCodeAt(0) < 128);
  const symbol = generate(ascii ? mode.ascii(text) : mode.utf8(text), {
    minCorrectionLevel: correction.M,
    maxCorrectionLevel: correction.M,
  });
  const size = symbol.size;
  const count = size + 2 * QUIET;
  // One module a unit of user space (cm), so the rectangles are integers and abut exactly.
  const module = Math.round((side / size) * 1000) / 1000;
  const quiet = QUIET * module;
  const runs: string[] = [];
  for (let row = 0; row < size; row++)
    for (let column = 0; column < size; column++) {
      if (!symbol.get(column, row)) continue;
      const start = column;
      while (symbol.get(column + 1, row)) column++;
      runs.push(`${start + QUIET} ${count - 1 - QUIET - row} ${column + 1 - start} 1 re`);
    }
  const x = Math.round((left - quiet) * 1000) / 1000;
  const y = Math.round((top + quiet - count * module) * 1000) / 1000;
  const ops = `q ${module} 0 0 ${module} ${x} ${y} cm 1 g 0 0 ${count} ${count} re f 0 g\n${runs.join("\n")}\nf Q`;
  return { ops, quiet };
}
