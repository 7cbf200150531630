import type { Context } from "hono";
import { customerOf } from "../../auth/principal";
import { findCardOrder } from "../../db/card-orders";
import {
  deleteEntry as deleteEntryRow,
  findOrderAndEntry,
  insertEntry,
  listEntries as queryEntries,
  touchDraft,
} from "../../db/entries";
import type { CardOrderEntryRow, CardOrderRow } from "../../db/schema";
import { assertEntriesChangeable, MAX_ENTRIES_PER_ORDER, orderFull } from "../../domain/card-orders";
import { isId, newId } from "../../domain/ids";
import type { AppEnv } from "../../env";
import { notFound } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import type { Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toEntry } from "../../schemas/entry";
import { commit } from "../../writes/commit";
import type * as routes from "./entries.routes";

const pathIds = (c: Context<AppEnv>) => ({ orderId: c.req.param("id") ?? "", entryId: c.req.param("entry_id") ?? "" });

async function loadOrder(c: Context<AppEnv>): Promise<CardOrderRow> {
  const { orderId } = pathIds(c);
  const order = isId(orderId) ? await findCardOrder(database(c), customerOf(c), orderId) : undefined;
  if (!order) throw notFound("card order");
  return order;
}

async function loadOrderAndEntry(c: Context<AppEnv>): Promise<{ order: CardOrderRow; entry: CardOrderEntryRow }> {
  const { orderId, entryId } = pathIds(c);
  const { order, entry } = isId(orderId)
    ? await findOrderAndEntry(database(c), customerOf(c), orderId, isId(entryId) ? entryId : "")
    : {};
  if (!order) throw notFound("card order");
  if (!entry) throw notFound("entry of this card order");
  return { order, entry };
}

export const createEntry: Handler<typeof routes.createEntry> = async (c, { body }) => {
  const order = await loadOrder(c);
  assertEntriesChangeable(order, true);
  const now = new Date().toISOString();
  const row: CardOrderEntryRow = {
    id: newId(),
    orderId: order.id,
    voucherOwnerId: body.voucher_owner_id,
    cardHolderName: body.card_holder_name,
    amount: body.amount,
    createdAt: now,
    updatedAt: now,
  };
  const { orm } = database(c);
  return commit(
    c,
    [touchDraft(orm, order.id, now, { room: MAX_ENTRIES_PER_ORDER }), insertEntry(orm, row)],
    {
      status: 201,
      body: singlePageEnvelope(c, [toEntry(row)]),
    },
    {
      entries_room: orderFull,
      order_draft: async () => assertEntriesChangeable(await loadOrder(c), true),
    },
  );
};

export const listEntries: Handler<typeof routes.listEntries> = async (c, { query }) => {
  const request = await pageRequest(c, query);
  const { orderId } = pathIds(c);
  const { rows, edges, total } = isId(orderId)
    ? await queryEntries(database(c), customerOf(c), orderId, request)
    : { rows: [], edges: undefined, total: undefined };
  if (total === undefined) throw notFound("card order");
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toEntry), total, edges));
};

export const deleteEntry: Handler<typeof routes.deleteEntry> = async (c) => {
  const { order, entry } = await loadOrderAndEntry(c);
  assertEntriesChangeable(order, false);
  const { orm } = database(c);
  return commit(
    c,
    [
      touchDraft(orm, order.id, new Date().toISOString(), { entryId: entry.id }),
      deleteEntryRow(orm, order.id, entry.id),
    ],
    { status: 204, body: undefined },
    {
      entry_exists: () => notFound("entry of this card order"),
      order_draft: async () => assertEntriesChangeable((await loadOrderAndEntry(c)).order, false),
    },
  );
};
