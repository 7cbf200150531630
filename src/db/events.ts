import { and, asc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { EventType } from "../domain/events";
import { keptTotal, pageReads, readPage } from "./keyset";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { lazily, param, queryBuilder as qb } from "./compiled";
import { keptLists, events, type EventRow } from "./schema";

// One set of statements per filter, so that each has a fixed plan on its own index.
const listReads = (byType: boolean) =>
  pageReads<EventRow>({
    table: events,
    where: and(eq(events.customerId, param("customer")), byType ? eq(events.type, param("type")) : undefined)!,
    total: keptTotal(keptLists.events, param("customer"), param("filter")),
    key: [events.createdAt, events.id],
  });

const eventListReads = { all: lazily(() => listReads(false)), byType: lazily(() => listReads(true)) };

/** One page of a customer's events, newest first, and their total (one round trip). */
export function listEvents(db: RequestDatabase, customerId: string, type: EventType | undefined, page: PageRequest) {
  const reads = (type === undefined ? eventListReads.all : eventListReads.byType)();
  return readPage(db, reads, { customer: customerId, type, filter: type ?? "" }, page);
}

/** The consumer has these events: the Cron Trigger need not send them again. */
export function markDispatched(orm: Database, ids: string[], at: string) {
  return orm
    .update(events)
    .set({ dispatchedAt: at })
    .where(and(inArray(events.id, ids), isNull(events.dispatchedAt)));
}

/** Of these events, those stored and not yet taken by the consumer. */
export function undispatchedOf(orm: Database, ids: string[]) {
  return orm
    .select()
    .from(events)
    .where(and(inArray(events.id, ids), isNull(events.dispatchedAt)));
}

/** Events written before `before` that the consumer never took, oldest first. */
export function undispatchedEvents(orm: Database, before: string, limit: number) {
  return orm
    .select()
    .from(events)
    .where(and(isNull(events.dispatchedAt), lt(events.createdAt, before)))
    .orderBy(asc(events.createdAt))
    .limit(limit);
}

const SWEEP_CHUNK = 500;
/** SQLite's own key of a row: a chunk of events to delete is chosen by it (a template: drizzle has no rowid column). */
const rowid = sql<number>`rowid`;

/** For the Cron Trigger: deletes events older than `before` in bounded chunks, returning how many. */
export async function deleteEventsBefore(binding: D1Database, before: string): Promise<number> {
  const orm = drizzle(binding);
  let deleted = 0;
  for (;;) {
    const old = qb.select({ rowid }).from(events).where(lt(events.createdAt, before)).limit(SWEEP_CHUNK);
    const { meta } = await orm.delete(events).where(inArray(rowid, old)).run();
    deleted += meta.changes;
    if (meta.changes < SWEEP_CHUNK) return deleted;
  }
}
