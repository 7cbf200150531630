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
  worker: "jobs",
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: listQuery({
    state: filter("Only transactions in this state.", TRANSACTION_STATES),
    bank_statement_id: anyFilter("Only the transactions of this statement."),
  }),
  success: { status: 200, schema: listOf("BankTransactionList", BankTransaction) },
  docs: {
    summary: "List the bank transactions, newest first",
    description:
      "Every transaction of the imported statements (duplicates are not stored twice), newest first; filter by " +
      "`state` (e.g. `unmatched`: what a person must look at) and `bank_statement_id`.",
    success: "A page of bank transactions.",
  },
} satisfies RouteSpec;

export const getBankTransaction = {
  method: "get",
  path: "/bank_transactions/{id}",
  operationId: "getBankTransaction",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ id: pathId("bank transaction") }),
  success: { status: 200, schema: dataOf("BankTransactionData", BankTransaction) },
  docs: {
    summary: "Get a bank transaction",
    description: "What it is, what of it is allocated, and what is unapplied.",
    success: "The transaction.",
  },
} satisfies RouteSpec;

export const createAllocation = {
  method: "post",
  path: "/bank_transactions/{id}/allocations",
  operationId: "createAllocation",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:write", tenant: false },
  body: CreateAllocation,
  query: NO_QUERY,
  params: z.object({ id: pathId("bank transaction") }),
  errors: ["conflict"],
  success: { status: 201, schema: listOf("PaymentList", Payment) },
  docs: {
    summary: "Allocate what a transaction has unapplied to an invoice",
    description:
      "A person's decision for an `unmatched` or `overpaid` transaction: `amount` of it to the open invoice " +
      "`invoice_id`, recorded as a payment by bank transfer (events payment.received, and invoice.paid when it " +
      "settles the invoice). 409 beyond the transaction's unapplied or the invoice's open amount, or when the " +
      "invoice is not open; 422 for a malformed amount or an unknown invoice.",
    success: "The payment.",
  },
} satisfies RouteSpec;

/** This folder's routes, in the route table's order (src/app.ts: the jobs Worker binds their handlers). */
export const bankTransactionRoutes = [listBankTransactions, getBankTransaction, createAllocation];
