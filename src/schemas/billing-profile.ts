import * as z from "zod/mini";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { isCountryCode, isEuMember, isSepaCountry, needsBic } from "../domain/countries";
import { DOCUMENT_LANGUAGES, type DocumentLanguage } from "../domain/einvoice";
import { INVOICE_DELIVERIES, INVOICE_FORMATS, type InvoiceDelivery, type InvoiceFormat } from "../domain/deliveries";
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
import { named } from "./registry";
import { resource } from "./resource";

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
      // docs/api.md part 17: how documents reach the buyer.
      invoice_format: z.optional(z.nullable(oneOf(INVOICE_FORMATS))),
      invoice_delivery: z.optional(z.nullable(oneOf(INVOICE_DELIVERIES))),
      // docs/api.md part 18: false when omitted or null.
      consumer: z.optional(z.nullable(z.boolean())),
    }).check(
      z.superRefine(crossFieldProblems, {
        when: ({ value }) => typeof value === "object" && value !== null && !Array.isArray(value),
      }),
    ),
  ),
);

/** A customer's invoicing data (docs/api.md part 13), copied onto each invoice when it is issued. */
export const billingProfiles = sqliteTable(
  "billing_profiles",
  {
    customerId: text("customer_id").primaryKey(),
    legalName: text("legal_name").notNull(),
    street: text("street").notNull(),
    postcode: text("postcode").notNull(),
    city: text("city").notNull(),
    countryCode: text("country_code").notNull(),
    vatId: text("vat_id"),
    buyerReference: text("buyer_reference"),
    leitwegId: text("leitweg_id"),
    // Required since docs/api.md part 14; NULL only on a profile stored before it (submit refuses that one).
    email: text("email"),
    directDebitIban: text("direct_debit_iban"),
    directDebitBic: text("direct_debit_bic"),
    directDebitMandateReference: text("direct_debit_mandate_reference"),
    directDebitMandateSignedOn: text("direct_debit_mandate_signed_on"),
    documentLanguage: text("document_language").$type<DocumentLanguage>().notNull().default("de"),
    // docs/api.md part 17: null resolves per delivery (ubl with a Leitweg-ID, else pdf).
    invoiceFormat: text("invoice_format").$type<InvoiceFormat>(),
    invoiceDelivery: text("invoice_delivery").$type<InvoiceDelivery>().notNull().default("email"),
    // docs/api.md part 18: the buyer is a consumer (§ 13 BGB): default interest at base + 5, no flat fee.
    consumer: integer("consumer", { mode: "boolean" }).notNull().default(false),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // Rule 3 of the matching (docs/api.md part 15): whose is a payer's IBAN.
    index("billing_profiles_direct_debit_iban").on(t.directDebitIban),
  ],
);

export type BillingProfileRow = typeof billingProfiles.$inferSelect;

const nullableText = (description?: string) => () =>
  z.nullable(description ? z.string().register(z.globalRegistry, { description }) : z.string());

const profile = resource<BillingProfileRow>()(
  "BillingProfile",
  (f) => ({
    type: f.from(
      () => z.literal("billing_profile"),
      () => "billing_profile" as const,
    ),
    customer: f.from(z.string, (row) => row.customerId),
    legal_name: f.column(z.string),
    street: f.column(z.string),
    postcode: f.column(z.string),
    city: f.column(z.string),
    country_code: f.column(z.string),
    vat_id: f.column(nullableText()),
    buyer_reference: f.column(
      nullableText("BT-10 of every invoice without a Leitweg-ID: whatever reference the buyer wants."),
    ),
    leitweg_id: f.column(nullableText("A public-sector buyer's Leitweg-ID: BT-10, and BT-49 with scheme 0204.")),
    email: f.column(
      nullableText("The buyer's electronic address (BT-49). Null only on a profile stored before it was required."),
    ),
    direct_debit_iban: f.column(nullableText()),
    direct_debit_bic: f.column(nullableText()),
    direct_debit_mandate_reference: f.column(nullableText()),
    direct_debit_mandate_signed_on: f.column(() => z.nullable(date())),
    document_language: f.column(() => z.enum(DOCUMENT_LANGUAGES)),
    invoice_format: f.column(() =>
      z.nullable(z.enum(INVOICE_FORMATS)).register(z.globalRegistry, {
        description: "The documents' format by e-mail: null is ubl with a Leitweg-ID, else pdf (ZUGFeRD).",
      }),
    ),
    invoice_delivery: f.column(() =>
      z.enum(INVOICE_DELIVERIES).register(z.globalRegistry, {
        description: "email: each invoice and credit note is e-mailed to `email`; none: fetched through the API.",
      }),
    ),
    consumer: f.column(() =>
      z.boolean().register(z.globalRegistry, {
        description: "The buyer is a consumer (§ 13 BGB): interest at base rate + 5 points, no flat fee (part 18).",
      }),
    ),
    updated_at: f.column(dateTime),
  }),
  "The customer's invoicing data: the buyer of every invoice issued after it was written.",
);

export const BillingProfile = profile.schema;
export const toBillingProfile = profile.show;
