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
  summary: "Set the customer's billing profile",
  description:
    "Replaces the profile whole: a field left out is null. Every invoice issued from now on names the customer so; invoices issued before keep what they were issued with. A card order is submitted only once the profile exists (for direct debit: with direct_debit_iban and direct_debit_mandate_reference). Emits billing_profile.updated.",
  tag: TAG,
  access: { scope: "invoices:write", tenant: true },
  body: UpdateBillingProfile,
  query: NO_QUERY,
  success: { status: 200, description: "The profile as stored.", schema: BillingProfileData },
} satisfies RouteSpec;

export const getBillingProfile = {
  method: "get",
  path: "/customers/me/billing_profile",
  operationId: "getBillingProfile",
  summary: "Get the customer's billing profile",
  description: "404 not_found until the first PUT.",
  tag: TAG,
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: NO_QUERY,
  errors: ["not_found"],
  success: { status: 200, description: "The profile.", schema: BillingProfileData },
} satisfies RouteSpec;
