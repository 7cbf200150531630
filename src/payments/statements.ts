import { and, eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { RequestDatabase } from "../db/client";
import { bankStatements, type BankStatementRow } from "../db/schema";
import type { Bindings } from "../env";
import { WriteConflict } from "../errors";
import { enqueueEvents } from "../events/enqueue";
import { nextTimestamp } from "../domain/time";
import { CamtError, readStatement, type StatementTransaction } from "./camt053";
import { type DedupeKeys, dedupeKeys } from "./dedupe";
import type { StatementMessage } from "./messages";
import { handleChunk } from "./chunk";
import { handleTransaction, type Progress } from "./transaction";

// docs/api.md part 15: a statement's transactions, read and matched off the request by the jobs Worker,
// top to bottom. A run reads the file kept in R2, then handles its transactions in chunks from where the
// statement stands (`handled`), each chunk's candidates read at once, matched in memory and written in
// one batch (chunk.ts); a transaction part 16 may claim is handled alone (transaction.ts). The run goes
// on until the statement is done, or it has used its time or its share of D1's 1,000 queries per
// invocation: then a message of its own carries on. A crash resumes where the last batch left it; the
// statement's position guard and the dedupe keys make sure nothing is handled twice.

/** A run's wall time: well inside a queue consumer's limits, whatever one chunk takes. */
const RUN_MS = 20_000;
/**
 * And at most this many D1 queries (each statement of a batch counts): D1 allows a Worker invocation
 * 1,000 (`wrangler dev` does not enforce it); the rest is for the run's own reads and writes.
 */
const RUN_QUERIES = 950;
/** What a transaction handled alone may take: its reads, its row, a few allocations and their events. */
const ALONE_QUERIES = 40;

/**
 * The statement last read in this isolate, by file and index: a file is never changed once stored, and
 * the runs of one statement follow one another, so each run after the first skips reading its file
 * (a 6 MB file: about a third of a second of parsing and hashing, every 150 transactions).
 */
let lastRead: { key: string; transactions: StatementTransaction[]; keys: DedupeKeys[] } | undefined;

/** Marks the statement failed: its file is gone, or it does not read (then nothing of it was handled). */
async function fail(db: RequestDatabase, statement: BankStatementRow, error: string) {
  const at = new Date().toISOString();
  await db.orm
    .update(bankStatements)
    .set({ state: "failed", error, processedAt: at, progressedAt: at })
    .where(and(eq(bankStatements.id, statement.id), eq(bankStatements.state, "processing")));
}

/** The statement's transactions and their dedupe keys; undefined when it failed for it. */
async function readOnce(db: RequestDatabase, env: Bindings, statement: BankStatementRow) {
  const key = `${statement.fileKey}#${statement.fileIndex}`;
  if (lastRead?.key === key) return lastRead;
  const file = await env.STATEMENT_FILES.get(statement.fileKey);
  if (!file) {
    await fail(db, statement, "The statement's file is missing from storage.");
    return undefined;
  }
  let transactions: StatementTransaction[];
  try {
    transactions = readStatement(new Uint8Array(await file.arrayBuffer()), statement.fileIndex);
  } catch (error) {
    if (!(error instanceof CamtError)) throw error;
    await fail(db, statement, error.message);
    return undefined;
  }
  lastRead = { key, transactions, keys: await dedupeKeys(statement.accountIban, transactions) };
  return lastRead;
}

/** One run over a statement: "more" when a next run must carry on, "done" otherwise. */
async function processStatement(env: Bindings, id: string): Promise<"done" | "more"> {
  const started = Date.now();
  const db = new RequestDatabase(env.DB, "first-primary");
  const [statement] = await db.orm.select().from(bankStatements).where(eq(bankStatements.id, id));
  if (statement?.state !== "processing") return "done";
  const read = await readOnce(db, env, statement);
  if (!read) return "done";
  const { transactions, keys } = read;
  if (transactions.length === 0) {
    const at = nextTimestamp(statement.progressedAt);
    await db.orm
      .update(bankStatements)
      .set({ state: "processed", processedAt: at, progressedAt: at })
      .where(eq(bankStatements.id, statement.id));
    return "done";
  }
  const progress: Progress = { statement, lastAt: statement.progressedAt };
  // This run's queries so far: the statement's read, and its file's failing or finishing.
  let queries = 2;
  for (let position = statement.handled; position < transactions.length; ) {
    if (Date.now() - started > RUN_MS || RUN_QUERIES - queries < ALONE_QUERIES) return "more";
    try {
      const chunk = await handleChunk(db.orm, progress, transactions, position, keys, RUN_QUERIES - queries);
      const done =
        chunk ??
        (await handleTransaction(
          db.orm,
          progress,
          transactions[position]!,
          position,
          keys[position]!,
          RUN_QUERIES - queries,
        ));
      progress.lastAt = done.lastAt;
      queries += done.queries;
      position += done.handled;
      progress.statement = { ...statement, handled: position };
      // After its batch; what this misses, the per-minute cron sends (events/redispatch.ts).
      if (done.events.length > 0) await enqueueEvents(env.EVENTS, done.events);
    } catch (error) {
      // Another run got there first (a message delivered twice): it carries on.
      if (error instanceof WriteConflict && error.guard === "statement_position") return "done";
      throw error;
    }
  }
  return "done";
}

/**
 * The statements queue's consumer: each message carries a statement on; a run that did not finish
 * sends the next. What reaches the dead-letter queue failed every attempt: the statement is marked
 * failed (an operator looks at the log), rather than retried by the cron for ever.
 */
export async function consumeStatements(batch: MessageBatch<StatementMessage>, env: Bindings): Promise<void> {
  for (const message of batch.messages) {
    const { statementId } = message.body;
    if (batch.queue.endsWith("-dlq")) {
      console.error(JSON.stringify({ level: "error", job: "statement_dead_letter", statement_id: statementId }));
      await drizzle(env.DB)
        .update(bankStatements)
        .set({
          state: "failed",
          error: sql`'Processing failed repeatedly after ' || ${bankStatements.handled} || ' of ' || ${
            bankStatements.transactionsCount
          } || ' transactions; an operator has the log.'`,
          processedAt: new Date().toISOString(),
        })
        .where(and(eq(bankStatements.id, statementId), eq(bankStatements.state, "processing")));
      message.ack();
      continue;
    }
    try {
      if ((await processStatement(env, statementId)) === "more") await env.STATEMENTS.send(message.body);
      message.ack();
    } catch (error) {
      console.error(
        JSON.stringify({ level: "error", job: "statement", statement_id: statementId, error: String(error) }),
      );
      message.retry({ delaySeconds: Math.min(300, 5 * 2 ** message.attempts) });
    }
  }
}
