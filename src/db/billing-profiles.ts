import { eq, sql, type SQL } from "drizzle-orm";
import { guarded } from "./guards";
import type { Buyer } from "../domain/einvoice";
import type { Database, RequestDatabase } from "./client";
import { compile, lazily, preparer, one, param } from "./compiled";
import { billingProfiles, type BillingProfileRow } from "./schema";

const profileOf = lazily(() =>
  compile<BillingProfileRow>(
    preparer()
      .select()
      .from(billingProfiles)
      .where(eq(billingProfiles.customerId, param("customer")))
      .prepare(),
  ),
);

export async function findBillingProfile(db: RequestDatabase, customerId: string) {
  const [row] = await db.read(profileOf(), { customer: customerId });
  return row;
}

/** The customer's billing profile, for a route's load step. */
export const profileRead = (customerId: string) => one(profileOf(), { customer: customerId });

/** A PUT replaces the profile whole. */
export function putBillingProfile(orm: Database, row: BillingProfileRow) {
  const { customerId, ...rest } = row;
  return orm.insert(billingProfiles).values(row).onConflictDoUpdate({ target: billingProfiles.customerId, set: rest });
}

/** The buyer of an invoice issued for `profile` (domain/einvoice.ts), as the invoice keeps it. */
export const buyerOf = (p: BillingProfileRow): Buyer => ({
  customerId: p.customerId,
  legalName: p.legalName,
  street: p.street,
  postcode: p.postcode,
  city: p.city,
  countryCode: p.countryCode,
  vatId: p.vatId,
  buyerReference: p.buyerReference,
  leitwegId: p.leitwegId,
  email: p.email,
  directDebitIban: p.directDebitIban,
  directDebitBic: p.directDebitBic,
  directDebitMandateReference: p.directDebitMandateReference,
  directDebitMandateSignedOn: p.directDebitMandateSignedOn,
  documentLanguage: p.documentLanguage,
});

/**
 * `value` while the customer's profile is as it was read (its updated_at): an invoice keeps the buyer
 * its checks passed, or a concurrent PUT fails its batch (guard `profile_unchanged`).
 */
export const whileProfileUnchanged = (profile: BillingProfileRow, value: unknown): SQL =>
  guarded(
    sql`(SELECT ${billingProfiles.updatedAt} FROM ${billingProfiles} WHERE ${billingProfiles.customerId} = ${
      profile.customerId
    }) = ${profile.updatedAt}`,
    value,
    "profile_unchanged",
  );
