import { env } from "cloudflare:workers";
import { call, token, unique } from "./api";
import { type Camt053Detail, type Camt053Entry, type Camt053Version, camt053File } from "./camt053-builder";
import { drainStatements } from "./queue";

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

/** A German IBAN of its own for a test (bank code 37040044, `account` up to 10 digits), check digits right. */
export function germanIban(account: number | string): string {
  const bban = `37040044${String(account).padStart(10, "0")}`;
  const check = 98n - (BigInt(`${bban}131400`) % 97n); // "DE00" moved to the end, D=13, E=14
  return `DE${String(check).padStart(2, "0")}${bban}`;
}
