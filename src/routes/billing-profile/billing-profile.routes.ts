import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { BillingProfile, UpdateBillingProfile } from "../../schemas/billing-profile";
import { dataOf } from "../../schemas/envelopes";

const TAG = "Billing profile";
const BillingProfileData = dataOf("BillingProfileData", BillingProfile);

export const putBillingProfile = {
  method: "put",
  path: "/customers/me/billing_profile",
  operationId: "putBillingProfile",
  tag: TAG,
  access: { scope: "invoices:write", tenant: true },
  body: UpdateBillingProfile,
  query: NO_QUERY,
  success: { status: 200, schema: BillingProfileData },
  docs: {
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
} satisfies RouteSpec;

export const getBillingProfile = {
  method: "get",
  path: "/customers/me/billing_profile",
  operationId: "getBillingProfile",
  tag: TAG,
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: NO_QUERY,
  errors: ["not_found"],
  success: { status: 200, schema: BillingProfileData },
  docs: {
    summary: "Get the customer's billing profile",
    description: "404 not_found until the first PUT.",
    success: "The profile.",
  },
} satisfies RouteSpec;
