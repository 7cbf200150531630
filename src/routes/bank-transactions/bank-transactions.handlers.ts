import type { Context } from "hono";
import { eq, sql } from "drizzle-orm";
import { listTransactions as queryTransactions, transactionRead } from "../../db/bank-transactions";
import { guarded } from "../../db/guards";
import { anyInvoiceRead } from "../../db/invoices";
import { bankTransactions } from "../../db/schema";
import { isId } from "../../domain/ids";
import { formatCents } from "../../domain/money";
import { chargesOpenOf, transactionStateOf } from "../../domain/payments";
import { nextTimestamp } from "../../domain/time";
import type { AppEnv } from "../../env";
import { ApiError, found } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, loadingEndpoint, type Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toBankTransaction, unappliedOf } from "../../schemas/bank-transaction";
import { toPayment } from "../../schemas/payment";
import { allocate, payableOf } from "../../writes/payments";
import * as routes from "./bank-transactions.routes";

const listBankTransactions: Handler<typeof routes.listBankTransactions> = async (c, { query }) => {
  const request = await pageRequest(c, query);
  const filters = { state: query.state, statementId: query.bank_statement_id };
  const { rows, edges, total } = await queryTransactions(database(c), filters, request);
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toBankTransaction), total ?? 0, edges));
};

const loadTransaction = (_: Context<AppEnv>, { params }: { params: { id: string } }) => ({
  transaction: transactionRead(params.id),
});

const getBankTransaction: Handler<typeof routes.getBankTransaction, typeof loadTransaction> = (c, { loaded }) =>
  reply(c, 200, { data: toBankTransaction(found(loaded.transaction, "bank transaction")) });

const noSuchInvoice = () =>
  ApiError.of("validation_failed", "invoice_id names no invoice.", { pointer: "/invoice_id" });

/** The transaction and the invoice to allocate to, in one round trip. */
const loadAllocation = (
  _: Context<AppEnv>,
  { params, body }: { params: { id: string }; body: { invoice_id: string } },
) => {
  if (!isId(body.invoice_id)) throw noSuchInvoice();
  return { transaction: transactionRead(params.id), invoice: anyInvoiceRead(body.invoice_id) };
};

const conflict = (detail: string) => ApiError.of("conflict", detail);

/**
 * docs/api.md part 15: a person allocates what a transaction has unapplied (an unmatched or overpaid
 * one) to an open invoice, as a payment by bank transfer, in one batch with its events. Refused (409)
 * beyond what the transaction has unapplied or the invoice has open, or for an invoice not open; both
 * are guarded on what was read, so two allocations that race take no more than either has.
 */
const createAllocation: Handler<typeof routes.createAllocation, typeof loadAllocation> = (
  c,
  { body, loaded, reload },
) => {
  const transaction = found(loaded.transaction, "bank transaction");
  const invoice = loaded.invoice;
  if (!invoice) throw noSuchInvoice();
  const unapplied = unappliedOf(transaction);
  if (transaction.state === "ignored" || transaction.state === "matched")
    throw conflict(`The bank transaction is ${transaction.state}: it has nothing unapplied to allocate.`);
  if (body.amount > unapplied)
    throw conflict(
      `The bank transaction has ${formatCents(unapplied)} unapplied, less than ${formatCents(body.amount)}.`,
    );
  // Part 18: up to the open amount plus the unpaid charges, also to a paid invoice with charges unpaid.
  if (invoice.state === "cancelled" || (invoice.state === "paid" && chargesOpenOf(invoice) === 0))
    throw conflict(`Invoice ${invoice.number} is ${invoice.state}, not open.`);
  const open = payableOf(invoice);
  const charges = chargesOpenOf(invoice);
  if (body.amount > open)
    throw conflict(
      `Invoice ${invoice.number} has ${formatCents(open)} open${
        charges > 0 ? ` (${formatCents(charges)} of it charges)` : ""
      }, less than ${formatCents(body.amount)}.`,
    );

  const { orm } = database(c);
  const at = nextTimestamp(transaction.createdAt);
  const allocation = allocate(orm, {
    invoice,
    amount: body.amount,
    method: "bank_transfer",
    bankTransactionId: transaction.id,
    bookedOn: transaction.bookedOn ?? at.slice(0, 10),
    at,
  });
  const allocated = transaction.allocatedAmount + body.amount;
  const holds = sql`${bankTransactions.allocatedAmount} = ${transaction.allocatedAmount}`;
  const moved = orm
    .update(bankTransactions)
    .set({
      allocatedAmount: guarded(holds, allocated, "transaction_allocation"),
      state: transactionStateOf(transaction.amount, allocated),
      customerId: transaction.customerId ?? invoice.customerId,
    })
    .where(eq(bankTransactions.id, transaction.id));
  // What changed meanwhile is read again, to say why.
  const reread = async () => {
    const fresh = await reload();
    if (fresh.transaction && body.amount > unappliedOf(fresh.transaction))
      throw conflict("The bank transaction's unapplied amount changed meanwhile; it has less than that now.");
    if (fresh.invoice && body.amount > payableOf(fresh.invoice))
      throw conflict(`Invoice ${invoice.number} changed meanwhile; it has less than that open now.`);
  };
  return {
    status: 201,
    writes: [...allocation.writes, moved],
    body: singlePageEnvelope(c, [toPayment(allocation.payment)]),
    events: allocation.events,
    refused: { transaction_allocation: reread, invoice_allocation: reread },
  };
};

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const bankTransactionEndpoints = [
  endpoint(routes.listBankTransactions, listBankTransactions),
  loadingEndpoint(routes.getBankTransaction, loadTransaction, getBankTransaction),
  loadingEndpoint(routes.createAllocation, loadAllocation, createAllocation),
];
