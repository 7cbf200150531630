import type { RouteDocs } from "../../http/route";

/** The prose of billing-profile.routes.ts in the OpenAPI document, by operationId. */
export const billingProfileDocs: Record<string, RouteDocs> = {
  putBillingProfile: {
    tag:
      "Who the customer is on its invoices: name, address, VAT id, buyer reference, direct-debit mandate. " +
      "Every invoice keeps the profile as it was when it was issued.",
    summary: "Set the customer's billing profile",
    description:
      'Replaces the profile whole: an optional field left out is null, document_language "de". email is ' +
      "required (the buyer's electronic address); vat_id too for a buyer in another EU state; the direct-debit " +
      "IBAN, mandate reference and its date come together or not at all. Every invoice issued from now on " +
      "names the customer so, in its document_language; invoices issued before keep what they were issued " +
      "with. A card order is submitted, and its invoices issued, only while the profile makes a valid " +
      "e-invoice (for direct debit: with the IBAN, the mandate and its date). Emits billing_profile.updated.",
    success: "The profile as stored.",
  },
  getBillingProfile: {
    summary: "Get the customer's billing profile",
    description: "404 not_found until the first PUT.",
    success: "The profile.",
  },
};
