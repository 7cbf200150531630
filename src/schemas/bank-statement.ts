import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import * as z from "zod/mini";
import { STATEMENT_STATES, type StatementState } from "../domain/payments";
import { date, dateTime } from "./formats";
import { resource } from "./resource";

// A bank statement (docs/api.md part 15): one Stmt of a camt.053 file the seller's bank sent, read and
// matched off the request. The file is kept in R2 as received (`file_key`), this statement being its
// `file_index`-th Stmt; `handled` counts its transactions done so far, where an interrupted run goes on.

export const bankStatements = sqliteTable(
  "bank_statements",
  {
    id: text("id").primaryKey(),
    statementId: text("statement_id").notNull(),
    accountIban: text("account_iban").notNull(),
    fromDate: text("from_date"),
    toDate: text("to_date"),
    state: text("state").$type<StatementState>().notNull(),
    error: text("error"),
    transactionsCount: integer("transactions_count").notNull(),
    matchedCount: integer("matched_count").notNull().default(0),
    unmatchedCount: integer("unmatched_count").notNull().default(0),
    duplicateCount: integer("duplicate_count").notNull().default(0),
    createdAt: text("created_at").notNull(),
    processedAt: text("processed_at"),
    fileKey: text("file_key").notNull(),
    fileIndex: integer("file_index").notNull(),
    version: text("version").notNull(),
    handled: integer("handled").notNull().default(0),
    // When its processing last moved: one that stopped moving lost its queue message (the cron sends it again).
    progressedAt: text("progressed_at").notNull(),
  },
  (t) => [
    index("bank_statements_created").on(t.createdAt, t.id),
    index("bank_statements_state_progressed").on(t.state, t.progressedAt),
  ],
);

export type BankStatementRow = typeof bankStatements.$inferSelect;

const statement = resource<BankStatementRow>()(
  "BankStatement",
  (f) => ({
    id: f.column(z.string),
    type: f.from(
      () => z.literal("bank_statement"),
      () => "bank_statement" as const,
    ),
    statement_id: f.column(() => z.string().register(z.globalRegistry, { description: "The bank's Stmt/Id." })),
    account_iban: f.column(z.string),
    from_date: f.column(() => z.nullable(date())),
    to_date: f.column(() => z.nullable(date())),
    state: f.column(() => z.enum(STATEMENT_STATES)),
    error: f.column(() => z.nullable(z.string())),
    transactions_count: f.column(() =>
      z.int().register(z.globalRegistry, { description: "Every transaction in the file, duplicates included." }),
    ),
    matched_count: f.column(() =>
      z.int().register(z.globalRegistry, { description: "Transactions matched or overpaid." }),
    ),
    unmatched_count: f.column(z.int),
    duplicate_count: f.column(() =>
      z
        .int()
        .register(z.globalRegistry, { description: "Transactions already known: neither stored nor matched again." }),
    ),
    created_at: f.column(dateTime),
    processed_at: f.column(() => z.nullable(dateTime())),
  }),
  "A camt.053 statement of the seller's account, read and matched off the request.",
);

export const BankStatement = statement.schema;
export const toBankStatement = statement.show;
