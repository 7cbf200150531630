import { eq, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Buyer } from "../documents/model";
import type { PaymentMethod } from "../domain/card-orders";
import { byId as cardOrderById } from "./card-orders";
import type { Database, RequestDatabase } from "./client";
import { columnsOf, compile, lazily, param, queryBuilder as qb } from "./compiled";
import { billingProfiles, type BillingProfileRow } from "./schema";

const profileOf = lazily(() =>
  compile<BillingProfileRow>(
    qb
      .select()
      .from(billingProfiles)
      .where(eq(billingProfiles.customerId, param("customer"))),
    columnsOf(billingProfiles),
  ),
);

export async function findBillingProfile(db: RequestDatabase, customerId: string) {
  const [row] = await db.read(profileOf(), { customer: customerId });
  return row;
}

/** The customer's card order and billing profile, in one round trip (a submit needs both). */
export async function findOrderAndProfile(db: RequestDatabase, customerId: string, orderId: string) {
  const [[order], [profile]] = await db.readBoth(
    [cardOrderById(), { id: orderId, customer: customerId }],
    [profileOf(), { customer: customerId }],
  );
  return { order, profile };
}

/** A PUT replaces the profile whole. */
export function putBillingProfile(orm: Database, row: BillingProfileRow) {
  const { customerId, ...rest } = row;
  return orm.insert(billingProfiles).values(row).onConflictDoUpdate({ target: billingProfiles.customerId, set: rest });
}

/**
 * The buyer of an invoice issued now (src/documents/model.ts `Buyer`), as JSON text read inside the
 * issuing batch: the profile exactly as that batch sees it. NULL when the customer has none, or when
 * a direct-debit invoice's profile lacks the account or the mandate (changed since the submit): that
 * invoice has no e-invoice (409), rather than one that could never be rendered.
 */
export function buyerOf(customerId: string, paymentMethod: PaymentMethod): SQL<string | null> {
  const p = billingProfiles;
  // Each field of the documents' Buyer from its column: a field added to the model fails to compile here.
  const fields = {
    customerId: p.customerId,
    legalName: p.legalName,
    street: p.street,
    postcode: p.postcode,
    city: p.city,
    countryCode: p.countryCode,
    vatId: p.vatId,
    buyerReference: p.buyerReference,
    email: p.email,
    directDebitIban: p.directDebitIban,
    directDebitMandateReference: p.directDebitMandateReference,
  } satisfies Record<keyof Buyer, SQLiteColumn>;
  const pairs = sql.join(
    Object.entries(fields).map(([name, column]) => sql`${sql.raw(`'${name}'`)}, ${column}`),
    sql`, `,
  );
  const payable = sql`(${paymentMethod} = 'bank_transfer' OR (${p.directDebitIban} IS NOT NULL AND ${
    p.directDebitMandateReference
  } IS NOT NULL))`;
  return sql<
    string | null
  >`(SELECT json_object(${pairs}) FROM ${p} WHERE ${p.customerId} = ${customerId} AND ${payable})`;
}
