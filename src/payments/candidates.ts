import { and, eq, inArray, isNotNull, max, min, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { bankTransactions, billingProfiles, invoices, type InvoiceRow } from "../db/schema";
import { directDebits } from "../schemas/direct-debit-collection";

// docs/api.md part 15: what a chunk of a statement's transactions needs to know from D1, read for the
// whole chunk at once (each read by an index, each statement within D1's 100 bound values), so that
// matching the chunk is done in memory. Each function answers its rows and how many queries it made.

/** Bound values per IN list: D1 allows 100 per statement, and each read binds a few of its own. */
const GROUP = 90;

/** `values` in groups that each fit one statement. */
export const groups = <T>(values: readonly T[], size = GROUP): T[][] =>
  Array.from({ length: Math.ceil(values.length / size) }, (_, i) => values.slice(i * size, (i + 1) * size));

/** How many queries reading `count` values in groups makes. */
export const readsFor = (count: number, size = GROUP) => Math.ceil(count / size);

/** The stored transactions among these keys: their dedupe keys, and the content keys of `contents`. */
export async function knownKeys(orm: Database, keys: string[], contents: string[]) {
  const known = new Set<string>();
  const knownContents = new Set<string>();
  const reads = [
    ...groups(keys).map(async (group) => {
      const rows = await orm
        .select({ key: bankTransactions.dedupeKey })
        .from(bankTransactions)
        .where(inArray(bankTransactions.dedupeKey, group));
      for (const row of rows) known.add(row.key);
    }),
    ...groups(contents).map(async (group) => {
      const rows = await orm
        .select({ content: bankTransactions.contentKey })
        .from(bankTransactions)
        .where(inArray(bankTransactions.contentKey, group));
      for (const row of rows) if (row.content !== null) knownContents.add(row.content);
    }),
  ];
  await Promise.all(reads);
  return { known, knownContents, queries: reads.length };
}

/** The end-to-end ids among `ids` that a direct debit was sent with (its settlement or return is part 16's). */
export async function debitIds(orm: Database, ids: string[]) {
  const found = new Set<string>();
  const reads = groups(ids).map(async (group) => {
    const rows = await orm
      .select({ id: directDebits.endToEndId })
      .from(directDebits)
      .where(inArray(directDebits.endToEndId, group));
    for (const row of rows) found.add(row.id);
  });
  await Promise.all(reads);
  return { found, queries: reads.length };
}

/** The invoices of these numbers. */
export async function invoicesNumbered(orm: Database, numbers: string[]) {
  const rows: InvoiceRow[] = [];
  const reads = groups(numbers).map(async (group) => {
    rows.push(...(await orm.select().from(invoices).where(inArray(invoices.number, group))));
  });
  await Promise.all(reads);
  return { rows, queries: reads.length };
}

/**
 * Rule 3's payers: for each IBAN, the customers it names (its profiles', and the lowest and highest
 * customer of the transactions matched before from it: one customer when those agree).
 */
export async function payersOf(orm: Database, ibans: string[]) {
  const customers = new Map<string, Set<string>>();
  const add = (iban: string | null, customer: string | null) => {
    if (iban === null || customer === null) return;
    const set = customers.get(iban) ?? new Set<string>();
    set.add(customer);
    customers.set(iban, set);
  };
  const reads = [
    ...groups(ibans).map(async (group) => {
      const rows = await orm
        .select({ iban: billingProfiles.directDebitIban, customer: billingProfiles.customerId })
        .from(billingProfiles)
        .where(inArray(billingProfiles.directDebitIban, group));
      for (const row of rows) add(row.iban, row.customer);
    }),
    ...groups(ibans).map(async (group) => {
      const rows = await orm
        .select({
          iban: bankTransactions.counterpartyIban,
          lowest: min(bankTransactions.customerId),
          highest: max(bankTransactions.customerId),
        })
        .from(bankTransactions)
        .where(and(inArray(bankTransactions.counterpartyIban, group), isNotNull(bankTransactions.customerId)))
        .groupBy(bankTransactions.counterpartyIban);
      for (const row of rows) {
        add(row.iban, row.lowest);
        add(row.iban, row.highest);
      }
    }),
  ];
  await Promise.all(reads);
  return { customers, queries: reads.length };
}

/** The open invoices of these customers whose open amount is one of `amounts` (rule 3's candidates). */
export async function openInvoicesOf(orm: Database, customers: string[], amounts: number[]) {
  const rows: InvoiceRow[] = [];
  const reads = groups(customers, 45).flatMap((some) =>
    groups(amounts, 45).map(async (these) => {
      rows.push(
        ...(await orm
          .select()
          .from(invoices)
          .where(
            and(
              inArray(invoices.customerId, some),
              eq(invoices.state, "open"),
              inArray(sql`${invoices.grossAmount} - ${invoices.allocatedAmount}`, these),
            ),
          )),
      );
    }),
  );
  await Promise.all(reads);
  return { rows, queries: reads.length };
}
