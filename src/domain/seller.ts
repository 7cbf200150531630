import type { Seller } from "./einvoice";
import { MalformedBillingVariable } from "./billing";
import { isCountryCode } from "./countries";
import { isIban } from "./iban";
import { isBic, isEmailAddress, isSepaCreditorId, isVatIdOf } from "./identifiers";

// docs/api.md parts 13 and 14: the seller of every invoice is the `[vars]` CREDITOR_* (wrangler.toml), read
// when an invoice is issued and kept on it. A missing or malformed one fails that request with a
// log line naming it (as a malformed fee does), never an invoice that cannot be booked.

type Name =
  | "NAME"
  | "STREET"
  | "POSTCODE"
  | "CITY"
  | "COUNTRY"
  | "VAT_ID"
  | "TAX_NUMBER"
  | "REGISTRATION_ID"
  | "MANAGING_DIRECTORS"
  | "CONTACT_NAME"
  | "CONTACT_PHONE"
  | "CONTACT_EMAIL"
  | "ELECTRONIC_ADDRESS"
  | "IBAN"
  | "BIC"
  | "SEPA_CREDITOR_ID";

export type SellerVariables = { [N in Name as `CREDITOR_${N}`]?: string };

const filled = (text: string) => text.trim() === text && text.length > 0 && text.length <= 200;

/** The seller as the variables say now; throws MalformedBillingVariable naming the first bad one. */
export function sellerOf(vars: SellerVariables, paymentMethod: "bank_transfer" | "direct_debit"): Seller {
  const read = (name: Name, valid: (text: string) => boolean = filled, required = true): string | null => {
    const text = vars[`CREDITOR_${name}`] ?? "";
    if (text === "" && !required) return null;
    if (!valid(text)) throw new MalformedBillingVariable(`CREDITOR_${name}`);
    return text;
  };
  const countryCode = read("COUNTRY", isCountryCode)!;
  return {
    name: read("NAME")!,
    street: read("STREET")!,
    postcode: read("POSTCODE")!,
    city: read("CITY")!,
    countryCode,
    vatId: read("VAT_ID", (text) => isVatIdOf(text, countryCode))!,
    taxNumber: read("TAX_NUMBER", filled, false),
    registrationId: read("REGISTRATION_ID")!,
    managingDirectors: read("MANAGING_DIRECTORS")!,
    contactName: read("CONTACT_NAME")!,
    contactPhone: read("CONTACT_PHONE")!,
    contactEmail: read("CONTACT_EMAIL", isEmailAddress)!,
    electronicAddress: read("ELECTRONIC_ADDRESS", isEmailAddress)!,
    iban: read("IBAN", isIban)!,
    bic: read("BIC", isBic, false),
    sepaCreditorId: read("SEPA_CREDITOR_ID", isSepaCreditorId, paymentMethod === "direct_debit"),
  };
}
