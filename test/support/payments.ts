import { env } from "cloudflare:workers";
import { earliestCollectionDate } from "../../src/domain/target2";
import { dayIn } from "../../src/domain/time";
import { BASE, call, createInvoice, newCardOrder, newEntry, orderIn, storeBillingProfile, token, unique } from "./api";
import { type Camt053Detail, type Camt053Entry, type Camt053Version, camt053File } from "./camt053-builder";
import { type CallRecord, FaultyD1, type FaultMode, UNREACHABLE } from "./faulty-d1";
import { germanIban, rfReference } from "./check-digits.mjs";
import { drainStatements } from "./queue";

// The check digits, computed independently of src/domain/ (check-digits.mjs), for the tests that build payments.
export { germanIban, rfReference };

// Bank statements as the seller's bank sends them (docs/api.md part 15), uploaded and read through the
// API: the back office's side of getting paid, for the tests of parts 15 and 16.

/** A token of the back office: the payments scopes, no customer (as docs/api.md part 2 issues them). */
export const backOffice = () => token({ customer_id: undefined, scope: "payments:read payments:write" });

/** A booked EUR credit into the seller's account, its details (one transaction each) as given. */
export const credit = (amount: string, ...details: Camt053Detail[]): Camt053Entry => ({
  amount,
  creditDebit: "credit",
  status: "BOOK",
  bookedOn: "2026-11-20",
  valueDate: "2026-11-20",
  accountServicerReference: unique("ACSR"),
  details: details.length > 0 ? details : [{}],
});

/**
 * A camt.053 file of the seller's account (CREDITOR_IBAN) with one statement of `entries`, each new,
 * of the day its entries are booked (`period` null: a statement without FrToDt).
 */
export const statementFile = (
  entries: Camt053Entry[],
  version: Camt053Version = "camt.053.001.08",
  period: { from: string; to: string } | null = { from: "2026-11-20", to: "2026-11-20" },
) =>
  camt053File({
    version,
    messageId: unique("MSG"),
    statements: [{ id: unique("STMT"), iban: env.CREDITOR_IBAN ?? "", ...period, entries }],
  });

/** POST /bank_statements with `file`: the response, as the client gets it. */
export const uploadFile = (auth: string, file: string, contentType = "application/xml") =>
  call("/bank_statements", { token: auth, method: "POST", body: file, headers: { "Content-Type": contentType } });

/** Uploads `entries` as a statement, lets the jobs Worker read and match it, and answers its transactions. */
export async function processed(
  auth: string,
  entries: Camt053Entry[],
): Promise<{ statement: any; transactions: any[] }> {
  const uploaded = await uploadFile(auth, statementFile(entries));
  if (uploaded.status !== 202) throw new Error(`uploading a statement: ${uploaded.status} ${await uploaded.text()}`);
  const [{ id }] = ((await uploaded.json()) as any).data;
  await drainStatements();
  const statement = ((await (await call(`/bank_statements/${id}`, { token: auth })).json()) as any).data;
  const listed = await call(`/bank_transactions?bank_statement_id=${id}&page_size=100`, { token: auth });
  return { statement, transactions: ((await listed.json()) as any).data };
}

// --- For the tests of part 15 (bank-statements, matching.rules, allocations, reconciliation.property).

/** The `data` of a 200 answer to GET `path`. */
export async function read(auth: string, path: string): Promise<any> {
  const response = await call(path, { token: auth });
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as any).data;
}

/** An open invoice of `auth`'s customer whose gross amount is `amount` (one entry of it, at most 10000.00). */
export async function invoiceOf(auth: string, amount: string, paymentMethod = "bank_transfer"): Promise<any> {
  const order = await orderIn(auth, "submitted", {
    order: { ...newCardOrder, payment_method: paymentMethod },
    entries: [{ ...newEntry, amount }],
  });
  return createInvoice(auth, order.id);
}

/** Uploads `file` and answers the statements of the 202 (throws on any other status). */
export async function upload(auth: string, file: string): Promise<any[]> {
  const response = await uploadFile(auth, file);
  if (response.status !== 202) throw new Error(`uploading a statement: ${response.status} ${await response.text()}`);
  return ((await response.json()) as any).data;
}

/** Every transaction of a statement, as GET /bank_transactions?bank_statement_id= lists them (newest first). */
export async function transactionsOf(auth: string, statementId: string): Promise<any[]> {
  const all: any[] = [];
  let path: string | null = `/bank_transactions?bank_statement_id=${statementId}&page_size=100`;
  while (path !== null) {
    const response = await call(path, { token: auth });
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
    const body = (await response.json()) as any;
    all.push(...body.data);
    path = body.links.next === null ? null : body.links.next.slice(BASE.length);
  }
  return all;
}

/** The keys of the statement files kept in R2. */
export async function storedFiles(): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.STATEMENT_FILES.list({ prefix: "statements/", cursor });
    keys.push(...page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return keys.sort();
}

/** The reference with check digits that are wrong (the right ones plus one, kept within 02..98). */
export function wrongRfReference(invoiceNumber: string): string {
  const right = Number(rfReference(invoiceNumber).slice(2, 4));
  return rfReference(invoiceNumber, right === 98 ? 2 : right + 1);
}

/** Cents of a money string ("12.30" -> 1230), and back. */
export const toCents = (money: string) => Math.round(Number(money) * 100);
export const toMoney = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;

/**
 * `xml` (as camt053File writes it, indented) with the first `from` after `after` replaced by `to`: `from` is
 * written without white space between its tags (`<BookgDt><Dt>2026-11-20</Dt>`), which matches any. For
 * shapes the builder cannot write (a malformed amount inside an otherwise valid file); throws when absent.
 */
export function xmlReplaced(xml: string, from: string, to: string, after = ""): string {
  const start = xml.indexOf(after);
  const pattern = new RegExp(from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replaceAll("><", ">\\s*<"));
  if (start < 0 || !pattern.test(xml.slice(start))) throw new Error(`not in the file: ${from}`);
  return xml.slice(0, start) + xml.slice(start).replace(pattern, () => to);
}

/**
 * An open direct-debit invoice of `auth`'s customer, under a mandate of its own, due today (set straight
 * in D1), so that the earliest collection date takes it and no invoice of another test made today,
 * which falls due later.
 */
export async function collectableInvoice(auth: string): Promise<{ id: string; number: string; gross_amount: string }> {
  // A mandate of its own: whether it was collected before decides FRST or RCUR.
  await storeBillingProfile(auth, { direct_debit_mandate_reference: unique("MNDT") });
  const order = await orderIn(auth, "submitted", {
    order: { voucher_category: "meal", payment_method: "direct_debit" },
  });
  const invoice = await createInvoice(auth, order.id);
  await env.DB.prepare("UPDATE invoices SET due_on = ? WHERE id = ?").bind(businessToday(), invoice.id).run();
  return invoice;
}

/** Today in the business time zone (wrangler.toml's BUSINESS_TIME_ZONE). */
export const businessToday = () => dayIn(new Date(), env.BUSINESS_TIME_ZONE ?? "Europe/Berlin");

/** The earliest collection date from today (SEPA Core's D-1 on the TARGET2 calendar). */
export const earliestDate = () => earliestCollectionDate(businessToday(), 1);

/** A collection of `auth`'s new collectable invoice, on the earliest date: the collection as answered. */
export async function collection(auth: string): Promise<{ id: string; message_id: string }> {
  await collectableInvoice(auth);
  const response = await call("/direct_debit_collections", { token: auth, json: { collection_date: earliestDate() } });
  if (response.status !== 201) throw new Error(`making a collection: ${response.status} ${await response.text()}`);
  return ((await response.json()) as any).data[0];
}

/**
 * Makes the batch that stores the `k`-th bank transaction fail (a chunk's batch stores several): before
 * it reaches the database, or after. Once.
 */
export class TransactionBatchFault extends FaultyD1 {
  private seen = 0;
  private failed = false;

  constructor(
    private readonly k: number,
    private readonly when: FaultMode = "before",
  ) {
    super(env.DB);
  }

  override async call<R>(kind: CallRecord["kind"], sql: string[], run: () => Promise<R>): Promise<R> {
    const stored = kind === "batch" ? sql.filter((s) => s.startsWith('insert into "bank_transactions"')).length : 0;
    this.seen += stored;
    if (stored > 0 && !this.failed && this.seen >= this.k) {
      this.failed = true;
      if (this.when === "after") await run();
      throw new Error(UNREACHABLE);
    }
    return super.call(kind, sql, run);
  }
}
