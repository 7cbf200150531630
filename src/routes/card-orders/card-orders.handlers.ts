import type { Context } from "hono";
import { customerOf } from "../../auth/principal";
import { findCardOrder, insertCardOrder, listCardOrders as queryCardOrders } from "../../db/card-orders";
import type { Database } from "../../db/client";
import { setInvoiceOrderState } from "../../db/invoices";
import { cardOrders, type CardOrderRow } from "../../db/schema";
import { cardOrderLifecycle, type CardOrderAction, type CardOrderState } from "../../domain/card-orders";
import { isId, newId } from "../../domain/ids";
import type { AppEnv } from "../../env";
import { notFound } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import type { Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toCardOrder } from "../../schemas/card-order";
import { commit } from "../../writes/commit";
import { applyTransition } from "../../writes/transition";
import type * as routes from "./card-orders.routes";

/** The card order named in the path, if it is the caller's customer's. */
async function loadCardOrder(c: Context<AppEnv>): Promise<CardOrderRow> {
  const id = c.req.param("id") ?? "";
  const row = isId(id) ? await findCardOrder(database(c), customerOf(c), id) : undefined;
  if (!row) throw notFound("card order");
  return row;
}

export const createCardOrder: Handler<typeof routes.createCardOrder> = (c, { body }) => {
  const now = new Date().toISOString();
  const row: CardOrderRow = {
    id: newId(),
    customerId: customerOf(c),
    state: cardOrderLifecycle.initial,
    createdAt: now,
    updatedAt: now,
    submittedAt: null,
    productionStartedAt: null,
    deliveredAt: null,
    description: body.description ?? null,
    invoiceReference: body.invoice_reference ?? null,
    costCenter: body.cost_center ?? null,
    paymentMethod: body.payment_method,
    voucherCategory: body.voucher_category,
    invoiceId: null,
    invoiceNumber: null,
  };
  return commit(c, [insertCardOrder(database(c).orm, row)], { status: 201, body: singlePageEnvelope(c, [toCardOrder(row)]) });
};

export const listCardOrders: Handler<typeof routes.listCardOrders> = async (c, { query }) => {
  const page = pageRequest(query);
  const { rows, total } = await queryCardOrders(database(c), customerOf(c), { state: query.state }, page);
  return reply(c, 200, pageEnvelope(c, page, rows.map(toCardOrder), total));
};

export const getCardOrder: Handler<typeof routes.getCardOrder> = async (c) => reply(c, 200, { data: toCardOrder(await loadCardOrder(c)) });

export const transitionCardOrder =
  (action: CardOrderAction): Handler<ReturnType<typeof routes.transitionCardOrder>> =>
  async (c) => {
    const row = await loadCardOrder(c);
    // An invoice shows its order's state (`orders[].state`): it moves in the same batch.
    const invoiceFollows = (orm: Database, _at: string, to: CardOrderState) => ({ writes: [setInvoiceOrderState(orm, row.id, to)] });
    return applyTransition(c, { lifecycle: cardOrderLifecycle, action, table: cardOrders, row, show: toCardOrder, effects: row.invoiceId === null ? undefined : invoiceFollows });
  };
