import { MAX_ENTRIES_PER_ORDER } from "../../domain/card-orders";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import { NO_CONTENT, type RouteSpec } from "../../http/route";
import { listQuery } from "../../pagination/query";
import * as z from "zod/mini";
import { CreateEntry, Entry } from "../../schemas/entry";
import { listOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";

const TAG = "Card order entries";
const ORDER = { id: pathId("card order") };

const EntryList = listOf("CardOrderEntryList", Entry);

const DRAFT_ONLY = "Entries are added and deleted only while the card order is draft (otherwise 409 invalid_state).";

export const createEntry = {
  method: "post",
  path: "/card_orders/{id}/entries",
  operationId: "createCardOrderEntry",
  tag: TAG,
  access: { scope: "card_orders:write", tenant: true },
  body: CreateEntry,
  query: NO_QUERY,
  params: z.object(ORDER),
  errors: ["invalid_state", "conflict"],
  success: { status: 201, schema: EntryList },
  docs: {
    tag: "The cards of a draft card order: who gets each and the amount loaded on it.",
    summary: "Add a voucher card to a draft card order",
    description:
      `${DRAFT_ONLY} An order holds at most ${MAX_ENTRIES_PER_ORDER} entries (the next one: 409 conflict). ` +
      "`amount` is a decimal string; a JSON number is refused. Moves the order's entries_count and updated_at.",
    success: "The new entry, as a single-page list envelope.",
  },
} satisfies RouteSpec;

export const listEntries = {
  method: "get",
  path: "/card_orders/{id}/entries",
  operationId: "listCardOrderEntries",
  tag: TAG,
  access: { scope: "card_orders:read", tenant: true },
  body: NO_BODY,
  query: listQuery({}),
  params: z.object(ORDER),
  success: { status: 200, schema: EntryList },
  docs: {
    summary: "List a card order's entries, newest first",
    description:
      "Pages the order's entries, newest first (created_at, then id, descending); " +
      "total_entries is the order's entries_count.",
    success: "A page of entries.",
  },
} satisfies RouteSpec;

export const deleteEntry = {
  method: "delete",
  path: "/card_orders/{id}/entries/{entry_id}",
  operationId: "deleteCardOrderEntry",
  tag: TAG,
  access: { scope: "card_orders:write", tenant: true },
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ ...ORDER, entry_id: pathId("entry of this card order") }),
  errors: ["invalid_state", "conflict"],
  success: { status: 204, schema: NO_CONTENT },
  docs: {
    summary: "Remove a voucher card from a draft card order",
    description:
      `${DRAFT_ONLY} An entry the order does not have answers 404, ` + "also for an order that is no longer a draft.",
    success: "Removed.",
  },
} satisfies RouteSpec;
