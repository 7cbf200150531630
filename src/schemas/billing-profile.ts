import * as z from "zod/mini";
import type { BillingProfileRow } from "../db/schema";
import { isCountryCode } from "../domain/countries";
import { isEmailAddress, isIban, isVatIdOf, VAT_ID } from "../domain/identifiers";
import { dateTime, optionalPrintableText, printableText, requestBody } from "./formats";
import { named, namedResponse } from "./registry";

// docs/api.md part 13: the customer's invoicing data, copied onto every invoice when it is issued.

const countryCode = () =>
  printableText(2, z.refine(isCountryCode, "must be an assigned ISO 3166-1 alpha-2 country code, upper case")).register(
    z.globalRegistry,
    { pattern: "^[A-Z]{2}$", examples: ["DE"] },
  );

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
      email: optionalPrintableText(254, z.refine(isEmailAddress, "must be an e-mail address: one @, no whitespace")),
      direct_debit_iban: optionalPrintableText(
        34,
        z.refine(isIban, "must be an IBAN (no spaces, upper case) with a valid checksum"),
      ),
      direct_debit_mandate_reference: optionalPrintableText(35),
    }).check(
      z.refine((p) => !p.vat_id || isVatIdOf(p.vat_id, p.country_code), {
        path: ["vat_id"],
        message: "must begin with the country code (EL for GR)",
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
          description: "BT-10 of every invoice: a public buyer's Leitweg-ID, or the reference the buyer wants.",
        }),
      ),
      email: z.nullable(z.string()),
      direct_debit_iban: z.nullable(z.string()),
      direct_debit_mandate_reference: z.nullable(z.string()),
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
  email: row.email,
  direct_debit_iban: row.directDebitIban,
  direct_debit_mandate_reference: row.directDebitMandateReference,
  updated_at: row.updatedAt,
});
