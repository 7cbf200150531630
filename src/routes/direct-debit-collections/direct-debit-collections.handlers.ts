import { inArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import {
  type CollectableRow,
  collectable,
  collectionDebits,
  collectionRead,
  listCollections as queryCollections,
} from "../../db/direct-debits";
import { guarded } from "../../db/guards";
import { invoices } from "../../db/schema";
import { businessTimeZone, directDebitLeadDays } from "../../domain/billing";
import {
  endToEndIdOf,
  type Candidate,
  type Mandate,
  MAX_DEBITS_PER_COLLECTION,
  mandateFor,
  messageIdOf,
  type MandateUse,
} from "../../domain/direct-debits";
import type { Buyer } from "../../domain/einvoice";
import { newId } from "../../domain/ids";
import { sellerOf } from "../../domain/seller";
import { earliestCollectionDate, isTarget2Day } from "../../domain/target2";
import { addDays, dayIn, isDay } from "../../domain/time";
import type { AppEnv } from "../../env";
import { ApiError, found } from "../../errors";
import { database } from "../../http/database";
import { keepAndServe, servedKept } from "../../http/kept-document";
import { reply } from "../../http/reply";
import { endpoint, loadingEndpoint, type Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { type Debtor, debtorOf, pain008 } from "../../payments/pain008";
import { needsBic } from "../../domain/countries";
import { isIban } from "../../domain/iban";
import { isBic, MANDATE_REFERENCE } from "../../domain/identifiers";
import {
  directDebitCollections,
  directDebits,
  type DirectDebitRow,
  toDirectDebitCollection,
} from "../../schemas/direct-debit-collection";
import { openAmountOf } from "../../writes/payments";
import * as routes from "./direct-debit-collections.routes";

/** How far ahead a collection may be made (a decision: docs/api.md part 16). */
const MAX_DAYS_AHEAD = 365;
/** How many candidates are read to find at most MAX_DEBITS_PER_COLLECTION that can be collected. */
const CANDIDATES = 5 * MAX_DEBITS_PER_COLLECTION;
/** Rows of a debit's insert: 17 columns each, within D1's 100 bound parameters. */
const DEBITS_PER_INSERT = 5;
/** Invoices of one update: three values each (the id twice, the amount read), within D1's 100 bound parameters. */
const INVOICES_PER_UPDATE = 30;

const CLOSED = "a weekend, 1 January, Good Friday, Easter Monday, 1 May, 25 or 26 December";

/** The collection date a request may name, or a 422 saying which it may. */
function collectionDateOf(c: Context<AppEnv>, date: string): string {
  const today = dayIn(new Date(), businessTimeZone(c.env));
  const earliest = earliestCollectionDate(today, directDebitLeadDays(c.env));
  const latest = addDays(today, MAX_DAYS_AHEAD);
  const why = !isTarget2Day(date)
    ? `${date} is not a TARGET2 business day (${CLOSED})`
    : date < earliest
      ? `${date} is too early: the earliest collection date is ${earliest}`
      : date > latest
        ? `${date} is more than ${MAX_DAYS_AHEAD} days ahead`
        : undefined;
  if (why) throw ApiError.of("validation_failed", `collection_date ${why}.`, { pointer: "/collection_date" });
  return date;
}

/**
 * A mandate as SEPA takes it, or null: an IBAN and a BIC that pass their checks (a BIC for an account
 * outside the EEA), a reference in SEPA's character set, a real signature date (a profile stored
 * before these rules may hold anything).
 */
function mandateOf(m: {
  reference: string | null;
  signedOn: string | null;
  iban: string | null;
  bic: string | null;
}): Mandate | null {
  const { reference, signedOn, iban, bic } = m;
  if (!reference || !signedOn || !iban) return null;
  if (!MANDATE_REFERENCE.test(reference) || !isDay(signedOn) || !isIban(iban) || (bic && !isBic(bic))) return null;
  // An account outside the EEA is debited only with its bank's BIC (a profile stored before part 14's rule).
  if (!bic && needsBic(iban.slice(0, 2))) return null;
  return { reference, signedOn, iban, bic: bic || null };
}

/** The mandates an invoice may be debited under, in order: the one it kept when issued, the profile's now. */
function candidatesOf(row: CollectableRow, buyer: Buyer | null): Candidate[] {
  const kept =
    buyer &&
    mandateOf({
      reference: buyer.directDebitMandateReference,
      signedOn: buyer.directDebitMandateSignedOn,
      iban: buyer.directDebitIban,
      bic: buyer.directDebitBic,
    });
  const profile = mandateOf({
    reference: row.profileReference,
    signedOn: row.profileSignedOn,
    iban: row.profileIban,
    bic: row.profileBic,
  });
  return [
    { mandate: kept, stopped: row.keptStopped === 1 },
    { mandate: profile, stopped: row.profileStopped === 1 },
  ];
}

/** What a collection on the date asked for may take, read in the load step (with the key's lookup). */
const loadCollectable = (_: Context<AppEnv>, { body }: { body: { collection_date: string } }) => ({
  candidates: collectable(body.collection_date, CANDIDATES),
});

/**
 * docs/api.md part 16, top to bottom: the date checked against the TARGET2 calendar and the lead days;
 * every open direct-debit invoice due by then that no collection holds, with the mandate it is debited
 * under (the one it kept, else the profile's now; none when expired or stopped by a return); FRST for a
 * mandate never collected before, else RCUR; the end-to-end id its invoice number (with -R<n> on a
 * re-collection); the amendment indicator when the mandate's account changed. One batch, which marks
 * each invoice held by the collection: two collections made at once cannot take one invoice twice, nor
 * one a payment or a cancel changed meanwhile (409, nothing created).
 */
const createDirectDebitCollection: Handler<typeof routes.createDirectDebitCollection, typeof loadCollectable> = (
  c,
  { body, loaded },
) => {
  // Checked here, not in the load step: a request replayed under its key after midnight answers as it did.
  const date = collectionDateOf(c, body.collection_date);
  const creditor = sellerOf(c.env, "direct_debit");
  const { orm } = database(c);
  const id = newId();
  const createdAt = new Date().toISOString();
  const debits: DirectDebitRow[] = [];
  const allocatedOf = new Map(loaded.candidates.map((row) => [row.id, row.allocatedAmount]));
  for (const row of loaded.candidates) {
    if (debits.length === MAX_DEBITS_PER_COLLECTION) break;
    const buyer = JSON.parse(row.buyer ?? "null") as Buyer | null;
    const candidates = candidatesOf(row, buyer);
    const uses = new Map<string, MandateUse>();
    candidates.forEach(({ mandate }, i) => {
      const use = [row.keptUse, row.profileUse][i];
      if (mandate && use) uses.set(mandate.reference, JSON.parse(use) as MandateUse);
    });
    const mandate = mandateFor(candidates, (reference) => uses.get(reference)?.on, date);
    // Its debtor as the invoice kept it; an invoice issued before it kept its buyer: the profile's.
    const debtor = buyer ?? (JSON.parse(row.profileDebtor ?? "null") as Debtor | null);
    const amount = openAmountOf(row);
    if (!mandate || !debtor || amount <= 0) continue;
    const use = uses.get(mandate.reference);
    debits.push({
      id: newId(),
      collectionId: id,
      invoiceId: row.id,
      customerId: row.customerId,
      endToEndId: endToEndIdOf(row.number, row.earlierDebits),
      amount,
      sequenceType: use ? "RCUR" : "FRST",
      collectionDate: date,
      mandateReference: mandate.reference,
      mandateSignedOn: mandate.signedOn,
      debtorIban: mandate.iban,
      debtor: JSON.stringify(debtorOf(debtor)),
      debtorBic: mandate.bic,
      originalDebtorIban: use && use.iban !== mandate.iban ? use.iban : null,
      state: "pending",
      returnReason: null,
      createdAt,
      settledBy: null,
    });
  }
  if (debits.length === 0)
    throw ApiError.of("conflict", `No open direct-debit invoice due on or before ${date} is free to collect.`);

  const collection = {
    id,
    collectionDate: date,
    messageId: messageIdOf(id),
    transactionsCount: debits.length,
    controlSum: debits.reduce((sum, debit) => sum + debit.amount, 0),
    state: "pending" as const,
    creditor: JSON.stringify(creditor),
    createdAt,
  };
  const writes: BatchItem<"sqlite">[] = [orm.insert(directDebitCollections).values(collection)];
  for (let i = 0; i < debits.length; i += DEBITS_PER_INSERT)
    writes.push(orm.insert(directDebits).values(debits.slice(i, i + DEBITS_PER_INSERT)));
  // The invoices it holds, each only if no other collection took it meanwhile, it is still open and
  // nothing was paid of it since it was read (a debit of what it had open then would take too much).
  for (let i = 0; i < debits.length; i += INVOICES_PER_UPDATE) {
    const held = debits.slice(i, i + INVOICES_PER_UPDATE);
    const allocatedAsRead = sql`CASE ${invoices.id} ${sql.join(
      held.map((debit) => sql`WHEN ${debit.invoiceId} THEN ${allocatedOf.get(debit.invoiceId)!}`),
      sql` `,
    )} END`;
    const holds = sql`${invoices.pendingCollection} IS NULL AND ${invoices.state} = 'open' AND ${
      invoices.allocatedAmount
    } = ${allocatedAsRead}`;
    writes.push(
      orm
        .update(invoices)
        .set({ pendingCollection: guarded(holds, id, "invoice_not_collected") })
        .where(
          inArray(
            invoices.id,
            held.map((debit) => debit.invoiceId),
          ),
        ),
    );
  }
  return {
    status: 201,
    writes,
    body: singlePageEnvelope(c, [toDirectDebitCollection(collection)]),
  };
};

const listDirectDebitCollections: Handler<typeof routes.listDirectDebitCollections> = async (c, { query }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await queryCollections(database(c), request);
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toDirectDebitCollection), total ?? 0, edges));
};

const loadCollection = (_: Context<AppEnv>, { params }: { params: { id: string } }) => ({
  collection: collectionRead(params.id),
});

const getDirectDebitCollection: Handler<typeof routes.getDirectDebitCollection, typeof loadCollection> = (
  c,
  { loaded },
) => reply(c, 200, { data: toDirectDebitCollection(found(loaded.collection, "direct debit collection")) });

/**
 * The collection's pain.008 file, written once from what it stored and kept in R2 (http/kept-document.ts):
 * a stored one is served with no database call; the first request reads the collection and its debits
 * in one round trip.
 */
const getDirectDebitCollectionDocument: Handler<typeof routes.getDirectDebitCollectionDocument> = async (
  c,
  { params },
) => {
  const kept = { key: `collections/${params.id}.xml` };
  const stored = await servedKept(c, kept);
  if (stored) return stored;
  const loaded = await database(c).load({ collection: collectionRead(params.id), debits: collectionDebits(params.id) });
  const collection = found(loaded.collection, "direct debit collection");
  const file = pain008(
    collection,
    loaded.debits.map(({ number, ...debit }) => ({ debit, number })),
  );
  return keepAndServe(c, kept, file, {
    contentType: "application/xml; charset=utf-8",
    contentDisposition: `attachment; filename="${collection.messageId}.xml"`,
  });
};

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const directDebitCollectionEndpoints = [
  loadingEndpoint(routes.createDirectDebitCollection, loadCollectable, createDirectDebitCollection),
  endpoint(routes.listDirectDebitCollections, listDirectDebitCollections),
  loadingEndpoint(routes.getDirectDebitCollection, loadCollection, getDirectDebitCollection),
  endpoint(routes.getDirectDebitCollectionDocument, getDirectDebitCollectionDocument),
];
