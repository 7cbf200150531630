import { and, eq, inArray, sql } from "drizzle-orm";
import { keptTotal, pageReads, readPage } from "./keyset";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { compile, lazily, preparer, param } from "./compiled";
import { guarded } from "./guards";
import { keptLists, webhookEndpoints, type WebhookEndpointRow } from "./schema";

const customerEndpoints = eq(webhookEndpoints.customerId, param("customer"));

/**
 * Stores an endpoint only while the customer has fewer than `max`: otherwise the guard
 * `webhook_endpoints_room` fails and the batch rolls back (db/guards.ts), also under concurrent requests.
 */
export function insertWebhookEndpoint(orm: Database, row: WebhookEndpointRow, max: number) {
  const room = sql`${keptTotal(keptLists.webhookEndpoints, row.customerId)} < ${max}`;
  return orm.insert(webhookEndpoints).values({ ...row, id: guarded(room, row.id, "webhook_endpoints_room") });
}

export function deleteWebhookEndpoint(orm: Database, customerId: string, id: string) {
  return orm
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.customerId, customerId)));
}

const byId = lazily(() =>
  compile<WebhookEndpointRow>(
    preparer()
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, param("id")), customerEndpoints))
      .prepare(),
  ),
);

export async function findWebhookEndpoint(
  db: RequestDatabase,
  customerId: string,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db.read(byId(), { id, customer: customerId });
  return row;
}

const listReads = lazily(() =>
  pageReads<WebhookEndpointRow>({
    table: webhookEndpoints,
    where: customerEndpoints,
    total: keptTotal(keptLists.webhookEndpoints, param("customer")),
    key: [webhookEndpoints.createdAt, webhookEndpoints.id],
  }),
);

/** One page of the customer's endpoints, newest first, and how many there are (one round trip). */
export const listWebhookEndpoints = (db: RequestDatabase, customerId: string, page: PageRequest) =>
  readPage(db, listReads(), { customer: customerId }, page);

/** The endpoints of these customers, for the fan-out of their events. */
export function endpointsOf(orm: Database, customerIds: string[]) {
  const { id, customerId, eventTypes } = webhookEndpoints;
  return orm
    .select({ id, customerId, eventTypes })
    .from(webhookEndpoints)
    .where(inArray(webhookEndpoints.customerId, customerIds));
}

/** Where a delivery goes: undefined once the endpoint was deleted (no further attempt). */
export function endpointForDelivery(orm: Database, id: string) {
  const { url, encryptedSecret } = webhookEndpoints;
  return orm.select({ url, encryptedSecret }).from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();
}
