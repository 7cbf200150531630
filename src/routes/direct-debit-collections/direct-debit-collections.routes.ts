import * as z from "zod/mini";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { listQuery } from "../../pagination/query";
import { CreateDirectDebitCollection, DirectDebitCollection } from "../../schemas/direct-debit-collection";
import { dataOf, listOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";

const TAG = "Payments";

const CollectionList = listOf("DirectDebitCollectionList", DirectDebitCollection);
const params = z.object({ id: pathId("direct debit collection") });

export const createDirectDebitCollection = {
  method: "post",
  path: "/direct_debit_collections",
  operationId: "createDirectDebitCollection",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:write", tenant: false },
  body: CreateDirectDebitCollection,
  query: NO_QUERY,
  errors: ["conflict"],
  success: { status: 201, schema: CollectionList },
  docs: {
    summary: "Collect the due direct debits",
    description:
      "Takes every open direct-debit invoice due on or before `collection_date` that no pending collection " +
      "holds (at most 1,000, the earliest due first), with its customer's mandate, into one SEPA Core " +
      "collection. `collection_date`: a TARGET2 business day at least DIRECT_DEBIT_LEAD_DAYS (default 1) " +
      "TARGET2 days ahead, today counting when it is one; else 422. No invoice to collect: 409 conflict, " +
      "nothing created. Its pain.008 file is GET .../document.",
    success: "The new collection.",
  },
} satisfies RouteSpec;

export const listDirectDebitCollections = {
  method: "get",
  path: "/direct_debit_collections",
  operationId: "listDirectDebitCollections",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: listQuery({}),
  success: { status: 200, schema: CollectionList },
  docs: {
    summary: "List the direct debit collections, newest first",
    description: "Every collection made, pending until each of its debits is paid or returned.",
    success: "A page of collections.",
  },
} satisfies RouteSpec;

export const getDirectDebitCollection = {
  method: "get",
  path: "/direct_debit_collections/{id}",
  operationId: "getDirectDebitCollection",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: NO_QUERY,
  params,
  success: { status: 200, schema: dataOf("DirectDebitCollectionData", DirectDebitCollection) },
  docs: {
    summary: "Get a direct debit collection",
    description: "Its date, message id, count, control sum and state.",
    success: "The collection.",
  },
} satisfies RouteSpec;

export const getDirectDebitCollectionDocument = {
  method: "get",
  path: "/direct_debit_collections/{id}/document",
  operationId: "getDirectDebitCollectionDocument",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: NO_QUERY,
  params,
  success: {
    status: 200,
    schema: z.string(),
    mediaType: "application/xml",
    headers: { "Cache-Control": "private" },
    conditional: true,
  },
  docs: {
    summary: "Download a collection's pain.008 file",
    description:
      "The ISO 20022 pain.008.001.08 file (SEPA Core) to hand to the seller's bank: the same bytes on every " +
      "request, kept once written. A strong ETag; If-None-Match answers 304.",
    success: "The pain.008 file, as an attachment named after its message id.",
  },
} satisfies RouteSpec;

/** This folder's routes, in the route table's order (src/app.ts: the jobs Worker binds their handlers). */
export const directDebitCollectionRoutes = [
  createDirectDebitCollection,
  listDirectDebitCollections,
  getDirectDebitCollection,
  getDirectDebitCollectionDocument,
];
