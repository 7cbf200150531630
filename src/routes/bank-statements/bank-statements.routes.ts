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
} satisfies RouteSpec;

export const listBankStatements = {
  method: "get",
  path: "/bank_statements",
  operationId: "listBankStatements",
  tag: TAG,
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: listQuery({}),
  success: { status: 200, schema: BankStatementList },
} satisfies RouteSpec;

export const getBankStatement = {
  method: "get",
  path: "/bank_statements/{id}",
  operationId: "getBankStatement",
  tag: TAG,
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ id: pathId("bank statement") }),
  success: { status: 200, schema: dataOf("BankStatementData", BankStatement) },
} satisfies RouteSpec;
