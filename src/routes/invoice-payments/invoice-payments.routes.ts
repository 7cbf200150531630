import * as z from "zod/mini";
import { invoiceLifecycle } from "../../domain/invoices";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { listQuery } from "../../pagination/query";
import { dataOf, listOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";
import { InvoiceBalance, Payment } from "../../schemas/payment";

const TAG = "Invoices";
const params = z.object({ id: pathId(invoiceLifecycle.noun) });

export const listInvoicePayments = {
  method: "get",
  path: "/invoices/{id}/payments",
  operationId: "listInvoicePayments",
  tag: TAG,
  worker: "jobs",
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: listQuery({}),
  params,
  success: { status: 200, schema: listOf("InvoicePaymentList", Payment) },
  docs: {
    summary: "List an invoice's payments, oldest first",
    description:
      "Every payment allocated to the invoice: matched from a bank statement, allocated by a person, collected by " +
      "direct debit, or recorded by `pay`; a returned direct debit shows `returned_at` and its reason.",
    success: "A page of payments.",
  },
} satisfies RouteSpec;

export const getInvoiceBalance = {
  method: "get",
  path: "/invoices/{id}/balance",
  operationId: "getInvoiceBalance",
  tag: TAG,
  worker: "jobs",
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: NO_QUERY,
  params,
  success: { status: 200, schema: dataOf("InvoiceBalanceData", InvoiceBalance) },
  docs: {
    summary: "Get what is paid of an invoice and what is open",
    description:
      "Its ISO 11649 payment reference (the RF reference to quote), gross amount, what is allocated of it, and " +
      "what is still open (never below zero).",
    success: "The invoice's balance.",
  },
} satisfies RouteSpec;

/** This folder's routes, in the route table's order (src/app.ts: the jobs Worker binds their handlers). */
export const invoicePaymentRoutes = [listInvoicePayments, getInvoiceBalance];
