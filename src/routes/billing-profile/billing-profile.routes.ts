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
} satisfies RouteSpec;
