import { and, asc, eq, getTableColumns, isNull, lte, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { PageRequest } from "../pagination/query";
import {
  directDebitCollections,
  directDebits,
  type DirectDebitCollectionRow,
  type DirectDebitRow,
} from "../schemas/direct-debit-collection";
import type { RequestDatabase } from "./client";
import { compile, preparer, every, lazily, one, param } from "./compiled";
import { keptTotal, pageReads, readPage } from "./keyset";
import { billingProfiles, invoices, type InvoiceRow } from "./schema";

// docs/api.md part 16: the collections, read by id and newest first (back office: no customer); what a
// new collection may take; a collection's debits with their invoices, for its pain.008 file. Each a
// compiled read, so that a route reads what it needs in one round trip.

const byId = lazily(() =>
  compile<DirectDebitCollectionRow>(
    preparer()
      .select()
      .from(directDebitCollections)
      .where(eq(directDebitCollections.id, param("id")))
      .prepare(),
  ),
);

/** The collection `id`, for a route's load step. */
export const collectionRead = (id: string) => one(byId(), { id });

const listReads = lazily(() =>
  pageReads<DirectDebitCollectionRow>({
    table: directDebitCollections,
    where: sql`1 = 1`,
    total: keptTotal("direct_debit_collections", ""),
    key: [directDebitCollections.createdAt, directDebitCollections.id],
  }),
);

/** One page of the collections, newest first, and how many there are (one round trip). */
export const listCollections = (db: RequestDatabase, page: PageRequest) => readPage(db, listReads(), {}, page);

/** A mandate reference's last collection, as JSON: its date and the account it debited (null: none). */
const lastUseOf = (reference: SQL | SQLiteColumn) =>
  sql<
    string | null
  >`(SELECT json_object('on', ${directDebits.collectionDate}, 'iban', ${directDebits.debtorIban}) FROM ${
    directDebits
  } WHERE ${directDebits.mandateReference} = ${reference} ORDER BY ${directDebits.collectionDate} DESC LIMIT 1)`;

const ofInvoice = sql`${directDebits} WHERE ${directDebits.invoiceId} = ${invoices.id}`;

/** Whether a return other than AM04 stopped a mandate reference on an account (docs/api.md part 16). */
const stoppedOn = (reference: SQL | SQLiteColumn, iban: SQL | SQLiteColumn) =>
  sql<number>`EXISTS (SELECT 1 FROM ${directDebits} WHERE ${directDebits.mandateReference} = ${reference} AND ${
    directDebits.debtorIban
  } = ${iban} AND ${directDebits.state} = 'returned' AND ${directDebits.returnReason} <> 'AM04')`;

const kept = (field: string) => sql`json_extract(${invoices.buyer}, ${`$.${field}`})`;

/** A row of `collectable`: the invoice, its profile now, its debits so far, its mandates' uses and stops. */
export interface CollectableRow extends InvoiceRow {
  profileIban: string | null;
  profileBic: string | null;
  profileReference: string | null;
  profileSignedOn: string | null;
  /** The profile's legal name and address (JSON), for an invoice that kept no buyer. */
  profileDebtor: string | null;
  earlierDebits: number;
  /** JSON: the last collection under the mandate the invoice kept, and under the profile's (MandateUse), or null. */
  keptUse: string | null;
  profileUse: string | null;
  /** 1: a return other than AM04 stopped that mandate on that account. */
  keptStopped: number;
  profileStopped: number;
}

const collectableRead = lazily(() => {
  const extra = {
    profileIban: billingProfiles.directDebitIban,
    profileBic: billingProfiles.directDebitBic,
    profileReference: billingProfiles.directDebitMandateReference,
    profileSignedOn: billingProfiles.directDebitMandateSignedOn,
    profileDebtor: sql<
      string | null
    >`CASE WHEN ${billingProfiles.customerId} IS NULL THEN NULL ELSE json_object(${sql.join(
      [
        sql`'legalName', ${billingProfiles.legalName}`,
        sql`'street', ${billingProfiles.street}`,
        sql`'postcode', ${billingProfiles.postcode}`,
        sql`'city', ${billingProfiles.city}`,
        sql`'countryCode', ${billingProfiles.countryCode}`,
      ],
      sql`, `,
    )}) END`.as("profile_debtor"),
    earlierDebits: sql<number>`(SELECT count(*) FROM ${ofInvoice})`.as("earlier_debits"),
    keptUse: lastUseOf(kept("directDebitMandateReference")).as("kept_use"),
    profileUse: lastUseOf(billingProfiles.directDebitMandateReference).as("profile_use"),
    keptStopped: stoppedOn(kept("directDebitMandateReference"), kept("directDebitIban")).as("kept_stopped"),
    profileStopped: stoppedOn(billingProfiles.directDebitMandateReference, billingProfiles.directDebitIban).as(
      "profile_stopped",
    ),
  };
  const query = preparer()
    .select({ ...getTableColumns(invoices), ...extra })
    .from(invoices)
    .leftJoin(billingProfiles, eq(billingProfiles.customerId, invoices.customerId))
    .where(
      and(
        // As the invoices_collectable index says it, so that the index serves the query.
        sql`${invoices.paymentMethod} = 'direct_debit' AND ${invoices.state} = 'open'`,
        lte(invoices.dueOn, param("date")),
        isNull(invoices.pendingCollection),
      ),
    )
    .orderBy(asc(invoices.dueOn))
    .limit(param("limit"))
    .prepare();
  return compile<CollectableRow>(query);
});

/**
 * The open direct-debit invoices due on or before `date` that no collection holds, earliest due first,
 * at most `limit`, with what deciding their debits needs (one read: the invoices_collectable index;
 * each invoice's debits by direct_debits_invoice, each mandate's by direct_debits_mandate).
 */
export const collectable = (date: string, limit: number) => every(collectableRead(), { date, limit });

/** A debit of a collection with its invoice's number. */
interface CollectionDebitRow extends DirectDebitRow {
  number: string;
}

const debitsRead = lazily(() =>
  compile<CollectionDebitRow>(
    preparer()
      .select({ ...getTableColumns(directDebits), number: invoices.number })
      .from(directDebits)
      .innerJoin(invoices, eq(invoices.id, directDebits.invoiceId))
      .where(eq(directDebits.collectionId, param("id")))
      .orderBy(asc(directDebits.sequenceType), asc(directDebits.endToEndId))
      .prepare(),
  ),
);

/** A collection's debits, in the order its file lists them (FRST first, by end-to-end id). */
export const collectionDebits = (id: string) => every(debitsRead(), { id });
