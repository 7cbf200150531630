import type { Context } from "hono";
import { customerOf } from "../../auth";
import { database } from "../../db";
import { findCardOrder, insertCardOrder, listCardOrders as queryCardOrders } from "../../db/card-orders";
import { isConstraintViolation, updateIfUnchanged } from "../../db/client";
import { cardOrders, type CardOrderRow } from "../../db/schema";
import { cardOrderLifecycle, toCardOrder, type CardOrderAction } from "../../domain/card-orders";
import { isId, newId } from "../../domain/ids";
import { assertAllowed, nextTimestamp } from "../../domain/lifecycle";
import type { AppEnv } from "../../env";
import { ApiError, jsonResponse, notFound } from "../../errors";
import type { Handler } from "../../http/route";
import { commit } from "../../idempotency";
import { filterParameter, pageEnvelope, pageRequest, singlePageEnvelope } from "../../pagination";
import type * as routes from "./card-orders.routes";

/** The card order named in the path, if it is the caller's customer's. */
export async function loadCardOrder(c: Context<AppEnv>): Promise<CardOrderRow> {
  const id = c.req.param("id") ?? "";
  const row = isId(id) ? await findCardOrder(database(c).orm, customerOf(c), id) : undefined;
  if (!row) throw notFound("card order");
  return row;
}

export const changedConcurrently = (noun: string) =>
  ApiError.of("conflict", `The ${noun} changed while this request ran; nothing was written. Fetch it and retry.`);

export const createCardOrder: Handler<typeof routes.createCardOrder> = (c, body) => {
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

export const listCardOrders: Handler<typeof routes.listCardOrders> = async (c) => {
  const page = pageRequest(c);
  const state = filterParameter(c, "state", cardOrderLifecycle.states);
  const { rows, total } = await queryCardOrders(database(c).orm, customerOf(c), { state }, page);
  return jsonResponse(c, 200, JSON.stringify(pageEnvelope(c, page, rows.map(toCardOrder), total)));
};

export const getCardOrder: Handler<typeof routes.getCardOrder> = async (c) => {
  return jsonResponse(c, 200, JSON.stringify({ data: toCardOrder(await loadCardOrder(c)) }));
};

export const transitionCardOrder =
  (action: CardOrderAction): Handler<ReturnType<typeof routes.transitionCardOrder>> =>
  async (c) => {
    const row = await loadCardOrder(c);
    assertAllowed(cardOrderLifecycle, row.state, action);
    const { to, stamp } = cardOrderLifecycle.transitions[action];
    const at = nextTimestamp(row.updatedAt);
    const changes = { state: to, updatedAt: at, ...(stamp ? { [stamp]: at } : {}) };
    try {
      return await commit(c, [updateIfUnchanged(database(c).orm, cardOrders, row, changes)], {
        status: 200,
        body: { data: toCardOrder({ ...row, ...changes }) },
      });
    } catch (error) {
      if (isConstraintViolation(error)) throw changedConcurrently("card order");
      throw error;
    }
  };
