import * as z from "zod/mini";
import type { BillingProfileRow } from "../db/schema";
import { isCountryCode, isEuMember, isSepaCountry, needsBic } from "../domain/countries";
import { DOCUMENT_LANGUAGES } from "../domain/einvoice";
import { isIban } from "../domain/iban";
import {
  isBic,
  isEmailAddress,
  isLeitwegId,
  isVatIdOf,
  LEITWEG_ID,
  MANDATE_REFERENCE,
  VAT_ID,
} from "../domain/identifiers";
import { dayIn, isDay } from "../domain/time";
import { date, dateTime, oneOf, optionalPrintableText, printableText, requestBody } from "./formats";
import { named, namedResponse } from "./registry";

// docs/api.md parts 13 and 14: the customer's invoicing data, copied onto every invoice when it is issued.

const countryCode = () =>
  printableText(2, z.refine(isCountryCode, "must be an assigned ISO 3166-1 alpha-2 country code, upper case")).register(
    z.globalRegistry,
    { pattern: "^[A-Z]{2}$", examples: ["DE"] },
  );

/** The direct-debit mandate's fields: all set, or all null (docs/api.md part 14). */
const MANDATE = ["direct_debit_iban", "direct_debit_mandate_reference", "direct_debit_mandate_signed_on"] as const;

type Profile = Partial<
  Record<(typeof MANDATE)[number] | "country_code" | "vat_id" | "direct_debit_bic", string | null>
>;

/** The rules between fields, each error on the field it concerns. */
function crossFieldProblems(p: Profile, ctx: z.core.$RefinementCtx<Profile>) {
  const issue = (field: string, message: string) =>
    ctx.issues.push({ code: "custom", message, input: p[field as keyof Profile], path: [field] });
  if (p.vat_id && !isVatIdOf(p.vat_id, p.country_code!))
    issue("vat_id", "must begin with the country code (EL for GR)");
  if (!p.vat_id && isEuMember(p.country_code!) && p.country_code !== "DE")
    issue("vat_id", "is required for a buyer in another EU member state");
  if (MANDATE.some((field) => p[field]))
    for (const field of MANDATE)
      if (!p[field]) issue(field, `is required with ${MANDATE.filter((f) => f !== field).join(" and ")}`);
  const iban = p.direct_debit_iban;
  if (iban && !isSepaCountry(iban.slice(0, 2))) issue("direct_debit_iban", "must be an account in a SEPA country");
  else if (iban && needsBic(iban.slice(0, 2)) && !p.direct_debit_bic)
    issue("direct_debit_bic", "is required for an account outside the EEA");
  if (p.direct_debit_bic && !iban) issue("direct_debit_bic", "is given only with direct_debit_iban");
}

// Built on first use (z.lazy): built at import, this schema alone made every cold start about 5 ms
// slower in workerd (npm run bench:startup), more than all the other request bodies together.
export const UpdateBillingProfile = named(
  "UpdateBillingProfile",
  z.lazy(() =>
    requestBody({
      legal_name: printableText(200),
      street: printableText(200),
      postcode: printableText(16),
      city: printableText(100),
      country_code: countryCode(),
      vat_id: optionalPrintableText(
        15,
        z.refine((s) => VAT_ID.test(s), "must be a VAT identification number such as DE123456789"),
      ).register(z.globalRegistry, { pattern: VAT_ID.source }),
      buyer_reference: optionalPrintableText(200),
      leitweg_id: optionalPrintableText(
        46,
        z.refine(isLeitwegId, "must be a Leitweg-ID such as 04011000-12345-03, with right check digits"),
      ).register(z.globalRegistry, { pattern: LEITWEG_ID.source }),
      email: printableText(254, z.refine(isEmailAddress, "must be an e-mail address: one @, no whitespace")),
      direct_debit_iban: optionalPrintableText(
        34,
        z.refine(isIban, "must be an IBAN (no spaces, upper case) of its country's length, with valid check digits"),
      ),
      direct_debit_bic: optionalPrintableText(11, z.refine(isBic, "must be a BIC of 8 or 11 characters")),
      direct_debit_mandate_reference: optionalPrintableText(
        35,
        z.refine(
          (s) => MANDATE_REFERENCE.test(s),
          "must use only the SEPA characters A-Z a-z 0-9 / - ? : ( ) . , ' + (no space)",
        ),
      ).register(z.globalRegistry, { pattern: MANDATE_REFERENCE.source }),
      direct_debit_mandate_signed_on: optionalPrintableText(
        10,
        z.refine(isDay, "must be a date, YYYY-MM-DD"),
        // Not after today anywhere on earth (UTC+14): the schema reads no setting (docs/api.md part 14).
        z.refine((day: string) => day <= dayIn(new Date(), "Etc/GMT-14"), "must not be in the future"),
      ),
      document_language: z.optional(oneOf(DOCUMENT_LANGUAGES)),
    }).check(
      z.superRefine(crossFieldProblems, {
        when: ({ value }) => typeof value === "object" && value !== null && !Array.isArray(value),
      }),
    ),
  ),
);

export const BillingProfile = namedResponse(
  "BillingProfile",
  () =>
    z.strictObject({
      type: z.literal("billing_profile"),
      customer: z.string(),
      legal_name: z.string(),
      street: z.string(),
      postcode: z.string(),
      city: z.string(),
      country_code: z.string(),
      vat_id: z.nullable(z.string()),
      buyer_reference: z.nullable(
        z.string().register(z.globalRegistry, {
          description: "BT-10 of every invoice without a Leitweg-ID: whatever reference the buyer wants.",
        }),
      ),
      leitweg_id: z.nullable(
        z.string().register(z.globalRegistry, {
          description: "A public-sector buyer's Leitweg-ID: BT-10, and BT-49 with scheme 0204.",
        }),
      ),
      email: z.nullable(
        z.string().register(z.globalRegistry, {
          description: "The buyer's electronic address (BT-49). Null only on a profile stored before it was required.",
        }),
      ),
      direct_debit_iban: z.nullable(z.string()),
      direct_debit_bic: z.nullable(z.string()),
      direct_debit_mandate_reference: z.nullable(z.string()),
      direct_debit_mandate_signed_on: z.nullable(date()),
      document_language: z.enum(DOCUMENT_LANGUAGES),
      updated_at: dateTime(),
    }),
  "The customer's invoicing data: the buyer of every invoice issued after it was written.",
);

export const toBillingProfile = (row: BillingProfileRow): z.input<typeof BillingProfile> => ({
  type: "billing_profile",
  customer: row.customerId,
  legal_name: row.legalName,
  street: row.street,
  postcode: row.postcode,
  city: row.city,
  country_code: row.countryCode,
  vat_id: row.vatId,
  buyer_reference: row.buyerReference,
  leitweg_id: row.leitwegId,
  email: row.email,
  direct_debit_iban: row.directDebitIban,
  direct_debit_bic: row.directDebitBic,
  direct_debit_mandate_reference: row.directDebitMandateReference,
  direct_debit_mandate_signed_on: row.directDebitMandateSignedOn,
  document_language: row.documentLanguage,
  updated_at: row.updatedAt,
});
