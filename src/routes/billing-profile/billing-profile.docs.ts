import type { RouteDocs } from "../../http/route";

/** The prose of billing-profile.routes.ts in the OpenAPI document, by operationId. */
export const billingProfileDocs: Record<string, RouteDocs> = {
  putBillingProfile: {
    summary: "Set the customer's billing profile",
    description:
      "Replaces the profile whole: a field left out is null. Every invoice issued from now on names " +
      "the customer so; invoices issued before keep what they were issued with. A card order is submitted " +
      "only once the profile exists (for direct debit: with direct_debit_iban and direct_debit_mandate_reference). " +
      "Emits billing_profile.updated.",
    success: "The profile as stored.",
  },
  getBillingProfile: {
    summary: "Get the customer's billing profile",
    description: "404 not_found until the first PUT.",
    success: "The profile.",
  },
};
