import type { Context } from "hono";
import { customerOf } from "../../auth/principal";
import { profileRead } from "../../db/billing-profiles";
import { findCardOrder, insertCardOrder, orderRead, listCardOrders as queryCardOrders } from "../../db/card-orders";
import type { Database } from "../../db/client";
import type { Read } from "../../db/compiled";
import { setInvoiceOrderState, voucherInvoiceRead } from "../../db/invoices";
import { cardOrders, type BillingProfileRow, type CardOrderRow, type InvoiceRow } from "../../db/schema";
import {
  assertBillable,
  cardOrderLifecycle,
  type CardOrderAction,
  type CardOrderState,
} from "../../domain/card-orders";
import { CARD_ORDER_EVENTS } from "../../domain/events";
import { assertCancellable } from "../../domain/invoices";
import { newId } from "../../domain/ids";
import type { AppEnv } from "../../env";
import { ApiError, found } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, loadingEndpoint, type Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toCardOrder } from "../../schemas/card-order";
import { columnsOf } from "../../schemas/resource";
import { cancelInvoice, issueInvoice } from "../../writes/invoices";
import { applyTransition, type TransitionEffects } from "../../writes/transition";
import * as routes from "./card-orders.routes";

/** What a transition reads: the order, and its voucher invoice or the customer's billing profile. */
type TransitionReads = {
  order: Read<CardOrderRow | undefined>;
  invoice?: Read<InvoiceRow | undefined>;
  profile?: Read<BillingProfileRow | undefined>;
};

/**
 * What a transition of the customer's card order reads, in one round trip: a cancel the order's voucher
 * invoice (it cancels an open one, and a paid one forbids it); every other transition the customer's
 * billing profile (a submit checks it, production and delivery issue an invoice to it).
 */
const loadTransition =
  (action: CardOrderAction) =>
  (c: Context<AppEnv>, { params }: { params: { id: string } }): TransitionReads => {
    const customerId = customerOf(c);
    const order = orderRead(customerId, params.id);
    return action === "cancel"
      ? { order, invoice: voucherInvoiceRead(customerId, params.id) }
      : { order, profile: profileRead(customerId) };
  };

interface Found {
  order: CardOrderRow;
  invoice?: InvoiceRow;
  profile?: BillingProfileRow;
}

const existing = (order: CardOrderRow | undefined): CardOrderRow => found(order, "card order");

const createCardOrder: Handler<typeof routes.createCardOrder> = (c, { body }) => {
  const now = new Date().toISOString();
  const row: CardOrderRow = {
    ...columnsOf(routes.createCardOrder.body, body),
    id: newId(),
    customerId: customerOf(c),
    state: cardOrderLifecycle.initial,
    createdAt: now,
    updatedAt: now,
    submittedAt: null,
    productionStartedAt: null,
    deliveredAt: null,
    invoiceId: null,
    invoiceNumber: null,
    productionInvoiceId: null,
    productionInvoiceNumber: null,
    shippingInvoiceId: null,
    shippingInvoiceNumber: null,
    entriesCount: 0,
    entriesAmount: 0,
  };
  return {
    status: 201,
    writes: [insertCardOrder(database(c).orm, row)],
    body: singlePageEnvelope(c, [toCardOrder(row)]),
  };
};

const listCardOrders: Handler<typeof routes.listCardOrders> = async (c, { query }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await queryCardOrders(database(c), customerOf(c), query.state, request);
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toCardOrder), total ?? 0, edges));
};

const getCardOrder: Handler<typeof routes.getCardOrder> = async (c, { params }) =>
  reply(c, 200, { data: toCardOrder(existing(await findCardOrder(database(c), customerOf(c), params.id))) });

type Effects = TransitionEffects<CardOrderRow>;

/**
 * What each transition of a card order does besides moving its state (docs/api.md parts 6 and 10).
 * Every invoice of the order shows its state (`orders[].state`), which moves in the same batch.
 */
function effectsOf(
  c: Context<AppEnv>,
  action: CardOrderAction,
  order: CardOrderRow,
  { invoice: voucherInvoice, profile }: Found,
) {
  return (orm: Database, at: string, to: CardOrderState): Effects => {
    const follow = setInvoiceOrderState(orm, order.id, to);
    const issue = (kind: "production" | "shipping"): Effects => {
      const context = { orm, vars: c.env, at };
      const invoice = issueInvoice(context, { ...order, state: to }, profile, kind, order.invoiceReference);
      return {
        writes: [...invoice.writes, follow],
        changes:
          kind === "production"
            ? { productionInvoiceId: invoice.row.id, productionInvoiceNumber: invoice.number }
            : { shippingInvoiceId: invoice.row.id, shippingInvoiceNumber: invoice.number },
        events: [invoice.event],
      };
    };
    switch (action) {
      case "submit":
        if (order.entriesCount === 0)
          throw ApiError.of(
            "invalid_state",
            "The card order has no entries; add at least one entry before submitting it.",
          );
        assertBillable(order, profile);
        return { writes: [follow] };
      case "cancel": {
        // Withdrawing an order withdraws its bill; a paid one must be settled by other means.
        if (voucherInvoice?.state === "paid")
          throw ApiError.of(
            "conflict",
            `The card order's invoice ${voucherInvoice.number} is paid; a paid order cannot be cancelled.`,
          );
        if (voucherInvoice?.state !== "open") return { writes: [follow] };
        assertCancellable(voucherInvoice);
        const cancelled = cancelInvoice(orm, c.env, voucherInvoice, at);
        return { writes: [...cancelled.writes, follow], events: [cancelled.event], made: [cancelled.number] };
      }
      case "start_production":
        return issue("production");
      case "deliver":
        return issue("shipping");
    }
  };
}

const transitionCardOrder =
  (
    action: CardOrderAction,
  ): Handler<ReturnType<typeof routes.transitionCardOrder>, ReturnType<typeof loadTransition>> =>
  (c, { loaded }) => {
    const row = existing(loaded.order);
    return applyTransition(c, {
      lifecycle: cardOrderLifecycle,
      action,
      table: cardOrders,
      row,
      show: toCardOrder,
      event: CARD_ORDER_EVENTS[action],
      effects: effectsOf(c, action, row, { ...loaded, order: row }),
    });
  };

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const cardOrderEndpoints = [
  endpoint(routes.createCardOrder, createCardOrder),
  endpoint(routes.listCardOrders, listCardOrders),
  endpoint(routes.getCardOrder, getCardOrder),
  ...(Object.keys(cardOrderLifecycle.transitions) as CardOrderAction[]).map((action) =>
    loadingEndpoint(routes.transitionCardOrder(action), loadTransition(action), transitionCardOrder(action)),
  ),
];
