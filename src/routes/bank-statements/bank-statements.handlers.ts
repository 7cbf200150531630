import type { Context } from "hono";
import { insertStatements, listStatements as queryStatements, statementRead } from "../../db/bank-statements";
import type { BankStatementRow } from "../../db/schema";
import { MalformedBillingVariable } from "../../domain/billing";
import { isIban } from "../../domain/iban";
import { CamtError, inspectStatementFile, type StatementFile } from "../../payments/camt053";
import { newId } from "../../domain/ids";
import type { AppEnv } from "../../env";
import { ApiError, found } from "../../errors";
import { sendAll } from "../../events/send-batch";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, loadingEndpoint, type Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toBankStatement } from "../../schemas/bank-statement";
import * as routes from "./bank-statements.routes";

const invalid = (detail: string) => ApiError.of("invalid_document", detail);

/** The account statements must be of: the seller's (a malformed one fails as every seller variable does). */
function sellerAccount(c: Context<AppEnv>): string {
  const iban = c.env.CREDITOR_IBAN ?? "";
  if (!isIban(iban)) throw new MalformedBillingVariable("CREDITOR_IBAN");
  return iban;
}

/** What the file holds, or a 422 saying why it is not a camt.053 the service reads. */
function inspect(file: Uint8Array): StatementFile {
  try {
    return inspectStatementFile(file);
  } catch (error) {
    if (error instanceof CamtError) throw invalid(error.message);
    throw error;
  }
}

/**
 * docs/api.md part 15: a camt.053 file, top to bottom. A file that is not a camt.053 of a version read
 * here (one without a statement included), or holds a statement of another account, is refused with
 * nothing stored. Otherwise the file is kept in R2 as received and each of its statements stored as
 * `processing`, in one batch, and handed to the statements queue: the jobs Worker reads and matches
 * their transactions. 202 (Location, the first statement's: http/mount.ts).
 */
const createBankStatements: Handler<typeof routes.createBankStatements> = async (c, { body: file }) => {
  const inspection = inspect(file);
  const account = sellerAccount(c);
  for (const statement of inspection.statements)
    if (statement.accountIban !== account)
      throw invalid(
        `Statement ${statement.id} is of account ${statement.accountIban ?? "(no IBAN)"}, ` +
          `not of the seller's ${account}.`,
      );

  const fileKey = `statements/${newId()}.xml`;
  await c.env.STATEMENT_FILES.put(fileKey, file, { httpMetadata: { contentType: "application/xml" } });
  const now = new Date();
  const rows: BankStatementRow[] = inspection.statements.map((statement, i) => {
    // One millisecond apart, in file order: the list (newest first) shows them the other way round.
    const at = new Date(now.getTime() + i).toISOString();
    return {
      id: newId(),
      statementId: statement.id,
      accountIban: account,
      fromDate: statement.fromDate,
      toDate: statement.toDate,
      state: "processing",
      error: null,
      transactionsCount: statement.transactionsCount,
      matchedCount: 0,
      unmatchedCount: 0,
      duplicateCount: 0,
      createdAt: at,
      processedAt: null,
      fileKey,
      fileIndex: statement.index,
      version: inspection.version,
      handled: 0,
      progressedAt: at,
    };
  });
  return {
    status: 202,
    writes: insertStatements(database(c).orm, rows),
    body: singlePageEnvelope(c, rows.map(toBankStatement)),
    location: rows[0]!.id,
    after: {
      // After the batch; a message that gets lost, the per-minute cron sends again (resume_statements).
      stored: () =>
        c.executionCtx.waitUntil(
          sendAll(
            c.env.STATEMENTS,
            rows.map((row) => ({ kind: "statement" as const, statementId: row.id })),
          ),
        ),
      // Nothing is stored of a refused or failed request: the file neither. But a batch whose answer
      // was lost may have committed, and its statement names the file: it goes only once the
      // statement is known not to be there.
      failed: () => c.executionCtx.waitUntil(deleteUnlessStored(c, rows[0]!.id, fileKey)),
    },
  };
};

async function deleteUnlessStored(c: Context<AppEnv>, statementId: string, fileKey: string) {
  const { read, values } = statementRead(statementId);
  const stored = await database(c)
    .read(read, values)
    .catch(() => [undefined]);
  if (stored.length === 0) await c.env.STATEMENT_FILES.delete(fileKey);
}

const listBankStatements: Handler<typeof routes.listBankStatements> = async (c, { query }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await queryStatements(database(c), request);
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toBankStatement), total ?? 0, edges));
};

const loadStatement = (_: Context<AppEnv>, { params }: { params: { id: string } }) => ({
  statement: statementRead(params.id),
});

const getBankStatement: Handler<typeof routes.getBankStatement, typeof loadStatement> = (c, { loaded }) =>
  reply(c, 200, { data: toBankStatement(found(loaded.statement, "bank statement")) });

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const bankStatementEndpoints = [
  endpoint(routes.createBankStatements, createBankStatements),
  endpoint(routes.listBankStatements, listBankStatements),
  loadingEndpoint(routes.getBankStatement, loadStatement, getBankStatement),
];
