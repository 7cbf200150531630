import { mod97 } from "./iban";

// ISO 11649 structured creditor references (docs/api.md part 15): "RF", two check digits, then up to
// 21 letters and digits. Every invoice has one, made of its number without hyphens: INV-2026-000004 →
// RF13INV2026000004. The check is mod 97 of the body followed by "RF00", letters counted as 10..35:
// 98 minus the remainder.

/** The RF reference of a body of letters and digits (upper case), e.g. "INV2026000004". */
function creditorReference(body: string): string {
  const check = 98 - mod97(`${body}RF00`);
  return `RF${String(check).padStart(2, "0")}${body}`;
}

/** An invoice's payment reference: the RF reference of its number without hyphens. */
export const paymentReferenceOf = (invoiceNumber: string): string =>
  creditorReference(invoiceNumber.replaceAll("-", ""));

/** Whether `reference` (spaces removed, upper case) is an RF reference whose check digits are right. */
export const isCreditorReference = (reference: string): boolean =>
  /^RF[0-9]{2}[A-Z0-9]{1,21}$/.test(reference) && mod97(reference.slice(4) + reference.slice(0, 4)) === 1;

/** "RF13INV2026000004" → "RF13 INV2 0260 0000 4": as printed, in groups of four. */
export const inGroupsOfFour = (value: string): string => value.replace(/(.{4})(?=.)/g, "$1 ");
