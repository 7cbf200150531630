import * as z from "zod/mini";
import { TRANSACTION_STATES } from "../../domain/payments";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { anyFilter, filter, listQuery } from "../../pagination/query";
import { BankTransaction, CreateAllocation } from "../../schemas/bank-transaction";
import { dataOf, listOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";
import { Payment } from "../../schemas/payment";

const TAG = "Payments";

export const listBankTransactions = {
  method: "get",
  path: "/bank_transactions",
  operationId: "listBankTransactions",
  tag: TAG,
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: listQuery({
    state: filter("Only transactions in this state.", TRANSACTION_STATES),
    bank_statement_id: anyFilter("Only the transactions of this statement."),
  }),
  success: { status: 200, schema: listOf("BankTransactionList", BankTransaction) },
} satisfies RouteSpec;

export const getBankTransaction = {
  method: "get",
  path: "/bank_transactions/{id}",
  operationId: "getBankTransaction",
  tag: TAG,
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ id: pathId("bank transaction") }),
  success: { status: 200, schema: dataOf("BankTransactionData", BankTransaction) },
} satisfies RouteSpec;

export const createAllocation = {
  method: "post",
  path: "/bank_transactions/{id}/allocations",
  operationId: "createAllocation",
  tag: TAG,
  access: { scope: "payments:write", tenant: false },
  body: CreateAllocation,
  query: NO_QUERY,
  params: z.object({ id: pathId("bank transaction") }),
  errors: ["conflict"],
  success: { status: 201, schema: listOf("PaymentList", Payment) },
} satisfies RouteSpec;
