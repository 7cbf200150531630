import type { Context } from "hono";
import { customerOf } from "../../auth/principal";
import { orderRead } from "../../db/card-orders";
import {
  deleteEntry as deleteEntryRow,
  entryRead,
  insertEntry,
  listEntries as queryEntries,
  touchDraft,
} from "../../db/entries";
import type { CardOrderEntryRow, CardOrderRow } from "../../db/schema";
import { assertEntriesChangeable, MAX_ENTRIES_PER_ORDER, orderFull } from "../../domain/card-orders";
import { newId } from "../../domain/ids";
import type { AppEnv } from "../../env";
import { found, notFound } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, loadingEndpoint, type Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toEntry } from "../../schemas/entry";
import * as routes from "./entries.routes";

const existing = (order: CardOrderRow | undefined): CardOrderRow => found(order, "card order");

/** The customer's card order (and, with `entry_id`, that entry of it), in one round trip. */
const loadOrder = (c: Context<AppEnv>, { params }: { params: { id: string } }) => ({
  order: orderRead(customerOf(c), params.id),
});
const loadOrderAndEntry = (c: Context<AppEnv>, { params }: { params: { id: string; entry_id: string } }) => ({
  order: orderRead(customerOf(c), params.id),
  entry: entryRead(params.id, params.entry_id),
});

const createEntry: Handler<typeof routes.createEntry, typeof loadOrder> = (c, { body, loaded, reload }) => {
  const order = existing(loaded.order);
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
  return {
    status: 201,
    writes: [touchDraft(orm, order.id, now, { room: MAX_ENTRIES_PER_ORDER }), insertEntry(orm, row)],
    body: singlePageEnvelope(c, [toEntry(row)]),
    refused: {
      entries_room: orderFull,
      order_draft: async () => assertEntriesChangeable(existing((await reload()).order), true),
    },
  };
};

const listEntries: Handler<typeof routes.listEntries> = async (c, { query, params }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await queryEntries(database(c), customerOf(c), params.id, request);
  if (total === undefined) throw notFound("card order");
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toEntry), total, edges));
};

const deleteEntry: Handler<typeof routes.deleteEntry, typeof loadOrderAndEntry> = (c, { loaded, reload }) => {
  const order = existing(loaded.order);
  const entry = found(loaded.entry, "entry of this card order");
  assertEntriesChangeable(order, false);
  const { orm } = database(c);
  return {
    status: 204,
    writes: [
      touchDraft(orm, order.id, new Date().toISOString(), { entryId: entry.id }),
      deleteEntryRow(orm, order.id, entry.id),
    ],
    body: undefined,
    refused: {
      entry_exists: () => notFound("entry of this card order"),
      order_draft: async () => assertEntriesChangeable(existing((await reload()).order), false),
    },
  };
};

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const entryEndpoints = [
  loadingEndpoint(routes.createEntry, loadOrder, createEntry),
  endpoint(routes.listEntries, listEntries),
  loadingEndpoint(routes.deleteEntry, loadOrderAndEntry, deleteEntry),
];
