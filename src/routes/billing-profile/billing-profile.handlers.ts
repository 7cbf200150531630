import { customerOf } from "../../auth/principal";
import { findBillingProfile, putBillingProfile as writeProfile } from "../../db/billing-profiles";
import type { BillingProfileRow } from "../../db/schema";
import { notFound } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, type Handler } from "../../http/route";
import { toBillingProfile } from "../../schemas/billing-profile";
import { columnsOf } from "../../schemas/resource";
import * as routes from "./billing-profile.routes";

/** Whether a PUT would change the profile (`updated_at` aside). */
const changes = (current: BillingProfileRow, next: BillingProfileRow) =>
  (Object.keys(next) as (keyof BillingProfileRow)[]).some(
    (field) => field !== "updatedAt" && current[field] !== next[field],
  );

/**
 * Replaces the profile, with its billing_profile.updated event. A PUT that changes nothing (a retry
 * whose answer was lost, say) writes nothing and emits no event: it answers the profile as it is.
 */
const putBillingProfile: Handler<typeof routes.putBillingProfile> = async (c, { body }) => {
  const db = database(c);
  const row: BillingProfileRow = {
    // A field left out is null, but for the three with a default.
    ...columnsOf(routes.putBillingProfile.body, body),
    customerId: customerOf(c),
    documentLanguage: body.document_language ?? "de",
    invoiceDelivery: body.invoice_delivery ?? "email",
    consumer: body.consumer ?? false,
    updatedAt: new Date().toISOString(),
  };
  const current = await findBillingProfile(db, row.customerId);
  if (current && !changes(current, row)) return reply(c, 200, { data: toBillingProfile(current) });
  const profile = toBillingProfile(row);
  return {
    status: 200,
    writes: [writeProfile(db.orm, row)],
    body: { data: profile },
    events: [{ type: "billing_profile.updated", data: profile }],
  };
};

const getBillingProfile: Handler<typeof routes.getBillingProfile> = async (c) => {
  const row = await findBillingProfile(database(c), customerOf(c));
  if (!row) throw notFound("billing profile");
  return reply(c, 200, { data: toBillingProfile(row) });
};

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const billingProfileEndpoints = [
  endpoint(routes.putBillingProfile, putBillingProfile),
  endpoint(routes.getBillingProfile, getBillingProfile),
];
