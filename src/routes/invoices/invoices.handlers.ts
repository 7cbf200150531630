import type { Context } from "hono";
import { customerOf, principalOf } from "../../auth/principal";
import { updateIfUnchanged } from "../../db/client";
import { listLines as queryLines } from "../../db/invoice-lines";
import { profileRead } from "../../db/billing-profiles";
import { orderRead } from "../../db/card-orders";
import {
  findAnyInvoice,
  findInvoice,
  invoiceRead,
  listInvoices as queryInvoices,
  voucherInvoiceRead,
} from "../../db/invoices";
import { assertBillable } from "../../domain/card-orders";
import { cardOrders, invoices, type InvoiceRow } from "../../db/schema";
import { INVOICE_EVENTS } from "../../domain/events";
import { isId } from "../../domain/ids";
import {
  assertCancellable,
  assertInvoiceable,
  assertNotCollected,
  invoiceLifecycle,
  type InvoiceAction,
} from "../../domain/invoices";
import { businessTimeZone } from "../../domain/billing";
import { dayIn } from "../../domain/time";
import { openAmountOf, recordPayment } from "../../writes/payments";
import { nextTimestamp } from "../../domain/time";
import type { AppEnv } from "../../env";
import { ApiError, found, notFound } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, loadingEndpoint, type Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toInvoice } from "../../schemas/invoice";
import { toInvoiceLine } from "../../schemas/invoice-line";
import { cancellation, issueInvoice, moneyAsRead } from "../../writes/invoices";
import { applyTransition } from "../../writes/transition";
import * as routes from "./invoices.routes";

// A token without customer_id here is the back office's (payments:read): it reads any customer's invoice.
const findOne = (c: Context<AppEnv>, id: string) => {
  const { customerId } = principalOf(c);
  return customerId === null ? findAnyInvoice(database(c), id) : findInvoice(database(c), customerId, id);
};

const existing = (row: InvoiceRow | undefined): InvoiceRow => found(row, "invoice");

const noSuchOrder = () =>
  ApiError.of("validation_failed", "order_id names no card order of this customer.", { pointer: "/order_id" });

/** The card order to invoice, its voucher invoice and the billing profile it is issued to (one round trip). */
const loadCreateInvoice = (c: Context<AppEnv>, { body }: { body: { order_id: string } }) => {
  // An order_id that is not an id names no order: refused unread.
  if (!isId(body.order_id)) throw noSuchOrder();
  const customerId = customerOf(c);
  return {
    order: orderRead(customerId, body.order_id),
    invoice: voucherInvoiceRead(customerId, body.order_id),
    profile: profileRead(customerId),
  };
};

const createInvoice: Handler<typeof routes.createInvoice, typeof loadCreateInvoice> = (
  c,
  { body, loaded: { order, invoice: current, profile }, reload },
) => {
  if (!order) throw noSuchOrder();
  assertInvoiceable(order, current);

  const db = database(c);
  const at = nextTimestamp(order.updatedAt);
  const context = { orm: db.orm, vars: c.env, at };
  const invoice = issueInvoice(context, order, profile, "voucher", body.reference ?? null);
  // Number, invoice and link in one batch: a number is taken only if the invoice is stored, so the
  // sequence stays gapless; the order's guard makes a concurrent second invoice roll back.
  const writes = [
    ...invoice.writes,
    updateIfUnchanged(db.orm, cardOrders, order, {
      invoiceId: invoice.row.id,
      invoiceNumber: invoice.number.value,
      updatedAt: at,
    }),
  ];
  // What changed the order or the profile, or which invoice got there first, is read again to say so.
  const reread = async () => {
    const fresh = await reload();
    if (!fresh.order) return;
    assertInvoiceable(fresh.order, fresh.invoice);
    assertBillable(fresh.order, fresh.profile);
  };
  return {
    status: 201,
    writes,
    body: singlePageEnvelope(c, [toInvoice(invoice.row)]),
    made: [invoice.number],
    events: [invoice.event],
    refused: { unchanged: reread, order_invoice: reread, profile_unchanged: reread },
  };
};

const listInvoices: Handler<typeof routes.listInvoices> = async (c, { query }) => {
  const request = await pageRequest(c, query);
  const chased = query.overdue !== undefined || query.dunning !== undefined;
  // An order's invoices are counted by state only: its overdue or dunning ones have no kept total
  // (docs/api.md part 18).
  if (chased && query.order_id !== undefined)
    throw ApiError.of("invalid_parameter", "order_id cannot be combined with overdue or dunning.", {
      parameter: "order_id",
    });
  // A customer's token keeps to its own invoices (docs/api.md part 18); the back office names one or none.
  const own = principalOf(c).customerId;
  const customer = own ?? query.customer;
  // Lists no invoice can be in: another customer's for a customer's token, no customer's (''), overdue
  // or dunning ones not open. ('' also names the kept totals of every customer's lists: never read here.)
  if (
    query.customer === "" ||
    (own !== null && query.customer !== undefined && query.customer !== own) ||
    (chased && query.state !== undefined && query.state !== "open")
  )
    return reply(c, 200, await pageEnvelope(c, request, [], 0, undefined));
  const { rows, edges, total } = await queryInvoices(
    database(c),
    customer ?? undefined,
    {
      state: query.state,
      orderId: query.order_id,
      dunning: query.dunning,
      overdueOn: query.overdue === undefined ? undefined : dayIn(new Date(), businessTimeZone(c.env)),
    },
    request,
  );
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toInvoice), total ?? 0, edges));
};

const listInvoiceLines: Handler<typeof routes.listInvoiceLines> = async (c, { query, params }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await queryLines(database(c), customerOf(c), params.id, request);
  if (total === undefined) throw notFound("invoice");
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toInvoiceLine), total, edges));
};

const getInvoice: Handler<typeof routes.getInvoice> = async (c, { params }) =>
  reply(c, 200, { data: toInvoice(existing(await findOne(c, params.id))) });

const loadInvoice = (c: Context<AppEnv>, { params }: { params: { id: string } }) => ({
  invoice: invoiceRead(customerOf(c), params.id),
});

const transitionInvoice =
  (action: InvoiceAction): Handler<ReturnType<typeof routes.transitionInvoice>, typeof loadInvoice> =>
  (c, { loaded }) => {
    const invoice = existing(loaded.invoice);
    return applyTransition(c, {
      lifecycle: invoiceLifecycle,
      action,
      table: invoices,
      row: invoice,
      show: toInvoice,
      event: INVOICE_EVENTS[action],
      effects: (orm, at) => {
        if (action === "pay") {
          assertNotCollected(invoice);
          // docs/api.md part 15: `pay` records a manual payment of what is open, before the invoice's event.
          const today = dayIn(new Date(at), businessTimeZone(c.env));
          const amount = openAmountOf(invoice);
          const payment = recordPayment(orm, {
            invoice,
            amount,
            method: "manual",
            bankTransactionId: null,
            bookedOn: today,
            at,
          });
          return {
            writes: [payment.insert],
            changes: moneyAsRead(invoice, invoice.allocatedAmount + amount),
            precedingEvents: [payment.event],
          };
        }
        assertCancellable(invoice);
        const { number, cancelledOn, take, delivery } = cancellation(orm, c.env, at, invoice);
        return {
          writes: [take, delivery],
          changes: { cancellationNumber: number, cancelledOn, ...moneyAsRead(invoice) },
        };
      },
    });
  };

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const invoiceEndpoints = [
  loadingEndpoint(routes.createInvoice, loadCreateInvoice, createInvoice),
  endpoint(routes.listInvoices, listInvoices),
  endpoint(routes.getInvoice, getInvoice),
  endpoint(routes.listInvoiceLines, listInvoiceLines),
  ...(Object.keys(invoiceLifecycle.transitions) as InvoiceAction[]).map((action) =>
    loadingEndpoint(routes.transitionInvoice(action), loadInvoice, transitionInvoice(action)),
  ),
];
