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
  access: { scope: "payments:write", tenant: false },
  body: CreateDirectDebitCollection,
  query: NO_QUERY,
  errors: ["conflict"],
  success: { status: 201, schema: CollectionList },
} satisfies RouteSpec;

export const listDirectDebitCollections = {
  method: "get",
  path: "/direct_debit_collections",
  operationId: "listDirectDebitCollections",
  tag: TAG,
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: listQuery({}),
  success: { status: 200, schema: CollectionList },
} satisfies RouteSpec;

export const getDirectDebitCollection = {
  method: "get",
  path: "/direct_debit_collections/{id}",
  operationId: "getDirectDebitCollection",
  tag: TAG,
  access: { scope: "payments:read", tenant: false },
  body: NO_BODY,
  query: NO_QUERY,
  params,
  success: { status: 200, schema: dataOf("DirectDebitCollectionData", DirectDebitCollection) },
} satisfies RouteSpec;

export const getDirectDebitCollectionDocument = {
  method: "get",
  path: "/direct_debit_collections/{id}/document",
  operationId: "getDirectDebitCollectionDocument",
  tag: TAG,
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
} satisfies RouteSpec;
