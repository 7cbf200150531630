// The payment instructions of an invoice's PDF (docs/api.md parts 13 and 15): how to pay, in the
// invoice's language. A credit transfer's rows (the RF reference in groups of four, as a payer types it)
// stand beside its EPC QR code (qr.ts), top-aligned with the heading, its symbol on the right margin and
// its label below; the text keeps clear of the code's quiet zone. A direct debit says what will be
// debited; a credit note has no rows.
import type { EInvoice } from "../../domain/einvoice";
import { inGroupsOfFour as groupsOfFour } from "../../domain/payment-reference";
import { type Payment, present } from "../semantic";
import type { Formats } from "./format";
import type { LABELS } from "./labels";
import { epcPayload, qrCode } from "./qr";
import { AREA, BODY, type Sheet } from "./sheet";

type Labels = (typeof LABELS)[keyof typeof LABELS];

/** The payment rows' values. */
const PAYMENT_VALUE = AREA.left + 90;
/**
 * The EPC QR code: its symbol 35 mm square (the quiet zone, at most 14 pt, around it), its top level
 * with the payment heading's capitals; the text at least `gap` left of it; `height` from the heading's
 * baseline down to below the label.
 */
const QR = { side: 99.21, gap: 20, capHeight: 6.5, labelSize: 7, height: 6.5 + 99.21 + 14 + 7 + 4 };

/** Draws the payment block where the sheet stands (the amount and due date: an invoice's, or a reminder's). */
export function paymentBlock(
  sheet: Sheet,
  doc: Pick<EInvoice, "grossCents" | "dueDate">,
  labels: Labels,
  f: Formats,
  payment: Payment,
) {
  const gross = `${f.money(doc.grossCents)} €`;
  const due = doc.dueDate ? f.day(doc.dueDate) : null;
  const [intro, rows]: [string, [string, string][]] =
    payment.code === "58"
      ? [
          labels.transfer(gross, due),
          [
            [labels.accountHolder, payment.accountName],
            ["IBAN", groupsOfFour(payment.iban)],
            ...(present(payment.bic) ? [["BIC", payment.bic] as [string, string]] : []),
            [labels.remittance, groupsOfFour(payment.remittance)],
          ],
        ]
      : payment.code === "59"
        ? [
            labels.debit(gross, due),
            [
              ["IBAN", groupsOfFour(payment.debitedIban)],
              [labels.mandate, payment.mandate],
              [labels.creditorId, payment.creditorId],
              [labels.remittance, payment.remittance],
            ],
          ]
        : [payment.terms, []];
  const code = payment.code === "58" ? epcPayload(payment, doc.grossCents) : null;
  const right = code === null ? AREA.right : AREA.right - QR.side - QR.gap;
  const introLines = sheet.wrap(intro, right - AREA.left);
  // A value too long for its line (the account holder's name, up to 200 characters) wraps.
  const valueLines = rows.map(([, value]) => sheet.wrap(value, right - PAYMENT_VALUE));
  const textHeight = BODY.leading * (2 + introLines.length + valueLines.flat().length);
  sheet.need(code === null ? textHeight : Math.max(textHeight, QR.height));
  const top = sheet.y;
  sheet.text(AREA.left, sheet.y, labels.payment, { bold: true });
  sheet.y -= BODY.leading + 2;
  for (const line of introLines) {
    sheet.text(AREA.left, sheet.y, line, { fit: right - AREA.left });
    sheet.y -= BODY.leading;
  }
  rows.forEach(([label], i) => {
    sheet.text(AREA.left, sheet.y, label, { grey: true });
    for (const line of valueLines[i]!) {
      sheet.text(PAYMENT_VALUE, sheet.y, line, { fit: right - PAYMENT_VALUE });
      sheet.y -= BODY.leading;
    }
  });
  if (code === null) return;
  const left = AREA.right - QR.side;
  const symbolTop = top + QR.capHeight;
  const { ops, quiet } = qrCode(code, left, symbolTop, QR.side);
  sheet.graphic(ops);
  const label = symbolTop - QR.side - quiet - QR.labelSize;
  sheet.text(left + QR.side / 2, label, labels.scan, {
    size: QR.labelSize,
    grey: true,
    align: "center",
    fit: QR.side,
  });
  sheet.y = Math.min(sheet.y, label - BODY.leading);
}
