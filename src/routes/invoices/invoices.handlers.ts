import type { Context } from "hono";
import { customerOf } from "../../auth/principal";
import { findCardOrder } from "../../db/card-orders";
import { updateIfUnchanged, type Database } from "../../db/client";
import { findInvoice, insertInvoice, listInvoices as queryInvoices, numberOf, takeNumber } from "../../db/invoices";
import { cardOrders, invoices, type InvoiceRow } from "../../db/schema";
import { isId, newId } from "../../domain/ids";
import { assertInvoiceable, invoiceLifecycle, NUMBER_SERIES, PAYMENT_TERM_DAYS, type InvoiceAction } from "../../domain/invoices";
import { addDays, isoDate, nextTimestamp } from "../../domain/time";
import type { AppEnv } from "../../env";
import { ApiError, isWriteConflict, notFound } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import type { Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toInvoice } from "../../schemas/invoice";
import { commit } from "../../writes/commit";
import { applyTransition, type TransitionEffects } from "../../writes/transition";
import type * as routes from "./invoices.routes";

async function loadInvoice(c: Context<AppEnv>): Promise<InvoiceRow> {
  const id = c.req.param("id") ?? "";
  const row = isId(id) ? await findInvoice(database(c), customerOf(c), id) : undefined;
  if (!row) throw notFound("invoice");
  return row;
}

export const createInvoice: Handler<typeof routes.createInvoice> = async (c, { body }) => {
  const { orm } = database(c);
  const customerId = customerOf(c);
  const findOrder = () => (isId(body.order_id) ? findCardOrder(database(c), customerId, body.order_id) : Promise.resolve(undefined));
  const order = await findOrder();
  if (!order) throw ApiError.of("validation_failed", "order_id names no card order of this customer.", { pointer: "/order_id" });
  assertInvoiceable(order);

  const now = new Date();
  const year = now.getUTCFullYear();
  const number = numberOf(NUMBER_SERIES.invoice, year);
  const invoice = {
    id: newId(),
    customerId,
    state: invoiceLifecycle.initial,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    bookedOn: isoDate(now),
    creditor: c.env.CREDITOR_NAME,
    dueOn: isoDate(addDays(now, PAYMENT_TERM_DAYS)),
    paidAt: null,
    cancellationNumber: null,
    cancelledAt: null,
    orderId: order.id,
    orderState: order.state,
    reference: body.reference ?? null,
    costCenter: order.costCenter,
    paymentMethod: order.paymentMethod,
  };
  // Number, invoice and link in one batch: a number is taken only if the invoice is stored, so the
  // sequence stays gapless; the order's guard makes a concurrent second invoice roll back.
  const writes = [
    takeNumber(orm, NUMBER_SERIES.invoice, year),
    insertInvoice(orm, { ...invoice, number }),
    updateIfUnchanged(orm, cardOrders, order, { invoiceId: invoice.id, invoiceNumber: number, updatedAt: nextTimestamp(order.updatedAt, now) }),
  ];
  try {
    return await commit(c, writes, {
      status: 201,
      body: singlePageEnvelope(c, [toInvoice({ ...invoice, number: "" })]),
      fill: { "$.data[0].number": number },
    });
  } catch (error) {
    // Someone else changed the order meanwhile: say why this order can no longer be invoiced, or
    // else that it changed (a write conflict answers 409).
    if (isWriteConflict(error)) {
      const current = await findOrder();
      if (current) assertInvoiceable(current);
    }
    throw error;
  }
};

export const listInvoices: Handler<typeof routes.listInvoices> = async (c, { query }) => {
  const page = pageRequest(query);
  const { rows, total } = await queryInvoices(database(c), customerOf(c), { state: query.state, orderId: query.order_id }, page);
  return reply(c, 200, pageEnvelope(c, page, rows.map(toInvoice), total));
};

export const getInvoice: Handler<typeof routes.getInvoice> = async (c) => reply(c, 200, { data: toInvoice(await loadInvoice(c)) });

// A cancellation is a legal document of its own: it takes a number of the CN series.
function cancellationNumber(orm: Database, at: string): TransitionEffects {
  const year = new Date(at).getUTCFullYear();
  const number = numberOf(NUMBER_SERIES.cancellation, year);
  return {
    writes: [takeNumber(orm, NUMBER_SERIES.cancellation, year)],
    changes: { cancellationNumber: number },
    fill: { "$.data.cancellation_number": number },
  };
}

export const transitionInvoice =
  (action: InvoiceAction): Handler<ReturnType<typeof routes.transitionInvoice>> =>
  async (c) =>
    applyTransition(c, {
      lifecycle: invoiceLifecycle,
      action,
      table: invoices,
      row: await loadInvoice(c),
      show: toInvoice,
      effects: action === "cancel" ? cancellationNumber : undefined,
    });
