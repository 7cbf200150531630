import { and, eq, lt, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { compile, preparer, lazily, one, param } from "./compiled";
import { keptTotal, pageReads, readPage } from "./keyset";
import { bankStatements, type BankStatementRow } from "./schema";

// docs/api.md part 15: the bank statements, read by id and newest first. Back office: no customer.

/** A file's statements, 5 rows an insert: 18 columns each, within D1's 100 bound parameters. */
export function insertStatements(orm: Database, rows: BankStatementRow[]) {
  const inserts = [];
  for (let i = 0; i < rows.length; i += 5) inserts.push(orm.insert(bankStatements).values(rows.slice(i, i + 5)));
  return inserts;
}

const byId = lazily(() =>
  compile<BankStatementRow>(
    preparer()
      .select()
      .from(bankStatements)
      .where(eq(bankStatements.id, param("id")))
      .prepare(),
  ),
);

/** The statement `id`, for a route's load step or a job. */
export const statementRead = (id: string) => one(byId(), { id });

const listReads = lazily(() =>
  pageReads<BankStatementRow>({
    table: bankStatements,
    where: sql`1 = 1`,
    total: keptTotal("bank_statements", ""),
    key: [bankStatements.createdAt, bankStatements.id],
  }),
);

/** One page of the statements, newest first, and how many there are (one round trip). */
export const listStatements = (db: RequestDatabase, page: PageRequest) => readPage(db, listReads(), {}, page);

/** For the Cron Trigger: statements whose processing stopped moving before `before` (their message was lost). */
export const stalledStatements = (binding: D1Database, before: string) =>
  drizzle(binding)
    .select({ id: bankStatements.id })
    .from(bankStatements)
    .where(and(eq(bankStatements.state, "processing"), lt(bankStatements.progressedAt, before)))
    .limit(100);
