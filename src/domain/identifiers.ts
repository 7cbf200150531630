import { vatPrefixOf } from "./countries";

// The identifiers of the parties of an invoice, each checked as the receiver's tools check it.

/** The remainder mod 97 of a string of digits and letters, each letter read as 10..35 (ISO 7064). */
function mod97(text: string): number {
  let remainder = 0;
  for (const char of text) {
    const value = Number.parseInt(char, 36);
    remainder = (remainder * (value < 10 ? 10 : 100) + value) % 97;
  }
  return remainder;
}

/**
 * An IBAN in its electronic form (ISO 13616: no spaces, upper case): a country code, two check
 * digits and up to 30 letters and digits, which is 1 mod 97 once the first four move to the end.
 */
export const isIban = (text: string): boolean =>
  /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(text) && mod97(text.slice(4) + text.slice(0, 4)) === 1;

/**
 * A SEPA creditor identifier, e.g. DE98ZZZ09999999999: a country code, two check digits, a
 * three-character business code the check leaves out, and the national identifier.
 */
export const isSepaCreditorId = (text: string): boolean =>
  /^[A-Z]{2}[0-9]{2}[A-Z0-9]{3}[A-Z0-9]{1,28}$/.test(text) && mod97(text.slice(7) + text.slice(0, 4)) === 1;

/** A BIC (ISO 9362): 8 or 11 characters. */
export const isBic = (text: string): boolean => /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(text);

export const VAT_ID = /^[A-Z]{2}[0-9A-Z+*.]{2,13}$/;

/** A VAT identification number of a party in `country` (docs/api.md part 13: the prefix is its code, EL for GR). */
export const isVatIdOf = (text: string, country: string): boolean =>
  VAT_ID.test(text) && text.startsWith(vatPrefixOf(country));

/** An e-mail address as far as docs/api.md checks one: one @, no whitespace, at most 254 characters. */
export const isEmailAddress = (text: string): boolean => text.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(text);
