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
} satisfies RouteSpec;
