import * as z from "zod/mini";
import { STATEMENT_FILE_LIMIT_BYTES } from "../../domain/payments";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { listQuery } from "../../pagination/query";
import { BankStatement } from "../../schemas/bank-statement";
import { dataOf, listOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";

const TAG = "Payments";

const BankStatementList = listOf("BankStatementList", BankStatement);

export const createBankStatements = {
  method: "post",
  path: "/bank_statements",
  operationId: "createBankStatements",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:write", tenant: false },
  body: NO_BODY,
  upload: {
    mediaTypes: ["application/xml", "text/xml"],
    limit: STATEMENT_FILE_LIMIT_BYTES,
    what: "the camt.053 file",
  },
  query: NO_QUERY,
  errors: ["invalid_document"],
  success: { status: 202, schema: BankStatementList, location: true },
  docs: {
    tag:
      "Back office: the seller's bank statements (camt.053), read and matched to invoices off the request; their " +
      "transactions, and a person's allocation of what was not matched.",
    summary: "Import a camt.053 bank statement file",
    description:
      "The file itself as the body (Content-Type application/xml or text/xml, at most 10 MiB): an ISO 20022 " +
      "camt.053.001.02 or .08 statement of the seller's account (CREDITOR_IBAN). Answers 202 at once, with each " +
      "statement of the file in `processing`; their transactions are read and matched off the request, and the " +
      "statement turns `processed` (or `failed`, with `error`). A file that is not XML, not a camt.053 of these " +
      "versions, or holds a statement of another account is refused (422 invalid_document) with nothing stored. " +
      "A transaction already known (the same file twice, overlapping statements) is counted, never matched again.",
    success: "The file's statements, in file order; Location names the first.",
  },
} satisfies RouteSpec;

export const listBankStatements = {
  method: "get",
  path: "/bank_statements",
  operationId: "listBankStatements",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: listQuery({}),
  success: { status: 200, schema: BankStatementList },
  docs: {
    summary: "List the bank statements, newest first",
    description: "Every statement imported, with its counts.",
    success: "A page of bank statements.",
  },
} satisfies RouteSpec;

export const getBankStatement = {
  method: "get",
  path: "/bank_statements/{id}",
  operationId: "getBankStatement",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ id: pathId("bank statement") }),
  success: { status: 200, schema: dataOf("BankStatementData", BankStatement) },
  docs: {
    summary: "Get a bank statement",
    description: "Its state and counts: poll it until it is `processed` or `failed`.",
    success: "The statement.",
  },
} satisfies RouteSpec;

/** This folder's routes, in the route table's order (src/app.ts: the jobs Worker binds their handlers). */
export const bankStatementRoutes = [createBankStatements, listBankStatements, getBankStatement];
