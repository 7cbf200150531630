// ISO 7064 MOD 97-10, the check digits of an IBAN (ISO 13616), an RF creditor reference (ISO 11649)
// and a Leitweg-ID, written once for every test and bench (plain JavaScript, so that the Node suites
// import it too) and on purpose independently of src/domain/: code held against itself proves nothing.
// Letters count as 10 to 35; the remainder is taken of the whole number at once.

/** The remainder mod 97 of `text`, each letter read as 10..35. */
export const mod97 = (text) => Number(BigInt(Array.from(text, (char) => Number.parseInt(char, 36)).join("")) % 97n);

/** The two check digits that make `body` followed by `suffix` (e.g. "DE00", "RF00") right: 98 minus its mod 97. */
export const checkDigits = (body, suffix = "00") => String(98 - mod97(`${body}${suffix}`)).padStart(2, "0");

/** Whether an IBAN's or RF reference's check digits hold: its first four characters moved to the end, mod 97 is 1. */
export const holdsMod97 = (code) => mod97(code.slice(4) + code.slice(0, 4)) === 1;

/** An IBAN of `country` and `bban` with right check digits (whatever else may be wrong with it). */
export const ibanOf = (country, bban) => `${country}${checkDigits(bban, `${country}00`)}${bban}`;

/** A German IBAN: bank code (37040044 unless told) and an account number of up to 10 digits. */
export const germanIban = (account, bankCode = "37040044") =>
  ibanOf("DE", `${bankCode}${String(account).padStart(10, "0")}`);

/** The ISO 11649 reference of an invoice number: "RF", its check digits, the number without hyphens. */
export function rfReference(invoiceNumber, check) {
  const body = invoiceNumber.replaceAll("-", "").toUpperCase();
  return `RF${check === undefined ? checkDigits(body, "RF00") : String(check).padStart(2, "0")}${body}`;
}
