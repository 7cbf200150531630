import { customerOf } from "../../auth/principal";
import { seal } from "../../crypto/secret-box";
import {
  deleteWebhookEndpoint as deleteRow,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints as queryEndpoints,
} from "../../db/webhook-endpoints";
import { newId } from "../../domain/ids";
import { MAX_WEBHOOK_ENDPOINTS, webhookUrlProblem } from "../../domain/webhooks";
import { ApiError, notFound } from "../../errors";
import { newWebhookSecret } from "../../events/webhook-signature";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, type Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toWebhookEndpoint, withSecret } from "../../schemas/webhook-endpoint";
import * as routes from "./webhook-endpoints.routes";

const full = () =>
  ApiError.of(
    "conflict",
    `The customer has ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints, the most it can have; delete one first.`,
  );

const createWebhookEndpoint: Handler<typeof routes.createWebhookEndpoint> = async (c, { body }) => {
  const problem = webhookUrlProblem(body.url, c.env.ALLOW_LOCAL_WEBHOOKS === "true");
  if (problem) throw ApiError.of("validation_failed", `url ${problem}.`, { pointer: "/url" });
  const customerId = customerOf(c);
  const secret = newWebhookSecret();
  const id = newId();
  const row = {
    id,
    customerId,
    url: body.url,
    eventTypes: JSON.stringify(body.event_types),
    encryptedSecret: await seal(c.env, "webhook-secrets", id, secret),
    createdAt: new Date().toISOString(),
  };
  // The limit holds in the insert itself (a concurrent 11th rolls back), which says so by its guard.
  return {
    status: 201,
    writes: [insertWebhookEndpoint(database(c).orm, row, MAX_WEBHOOK_ENDPOINTS)],
    body: singlePageEnvelope(c, [withSecret(row, secret)]),
    secret: true,
    refused: { webhook_endpoints_room: full },
  };
};

const listWebhookEndpoints: Handler<typeof routes.listWebhookEndpoints> = async (c, { query }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await queryEndpoints(database(c), customerOf(c), request);
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toWebhookEndpoint), total ?? 0, edges));
};

const deleteWebhookEndpoint: Handler<typeof routes.deleteWebhookEndpoint> = async (c, { params: { id } }) => {
  const db = database(c);
  const customerId = customerOf(c);
  if (!(await findWebhookEndpoint(db, customerId, id))) throw notFound("webhook endpoint");
  return { status: 204, writes: [deleteRow(db.orm, customerId, id)], body: undefined };
};

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const webhookEndpointEndpoints = [
  endpoint(routes.createWebhookEndpoint, createWebhookEndpoint),
  endpoint(routes.listWebhookEndpoints, listWebhookEndpoints),
  endpoint(routes.deleteWebhookEndpoint, deleteWebhookEndpoint),
];
