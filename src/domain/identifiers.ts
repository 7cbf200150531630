import { vatPrefixOf } from "./countries";
import { mod97 } from "./iban";

// The identifiers of the parties of an invoice, each checked as the receiver's tools check it.

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

export const LEITWEG_ID = /^[0-9]{2,12}(-[0-9A-Z]{1,30})?-[0-9]{2}$/;

/**
 * A Leitweg-ID (KoSIT's format specification 2.0): the coarse and the fine address, then two check
 * digits of ISO 7064 MOD 97-10 over both addresses without their hyphens, letters counted as 10..35.
 */
export function isLeitwegId(text: string): boolean {
  if (!LEITWEG_ID.test(text)) return false;
  return mod97(text.slice(0, -3).replace("-", "") + text.slice(-2)) === 1;
}

/** A mandate reference as SEPA writes it (EPC's Latin set, no space), 1 to 35 characters: never transliterated. */
export const MANDATE_REFERENCE = /^[A-Za-z0-9/?:().,'+-]{1,35}$/;
