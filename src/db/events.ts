import { and, asc, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { EventType } from "../domain/events";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { columnsOf, compile, lazily, param, queryBuilder as qb } from "./compiled";
import { eventCounts, events, type EventRow } from "./schema";

// One statement per filter combination, so that each has a fixed plan on its own index.
const listReads = (byType: boolean) => ({
  page: compile<EventRow>(
    qb
      .select()
      .from(events)
      .where(and(eq(events.customerId, param("customer")), byType ? eq(events.type, param("type")) : undefined))
      .orderBy(desc(events.createdAt), desc(events.id))
      .limit(param("limit"))
      .offset(param("offset")),
    columnsOf(events),
  ),
  total: compile<{ total: number }>(
    qb
      .select({ total: sql<number>`coalesce(sum(${eventCounts.total}), 0)`.as("total") })
      .from(eventCounts)
      .where(and(eq(eventCounts.customerId, param("customer")), byType ? eq(eventCounts.type, param("type")) : undefined)),
    { total: "total" },
  ),
});

const eventListReads = { all: lazily(() => listReads(false)), byType: lazily(() => listReads(true)) };

/** One page of a customer's events, newest first, and the total from the kept counts (one round trip). */
export async function listEvents(db: RequestDatabase, customerId: string, type: EventType | undefined, page: PageRequest) {
  const { page: pageRead, total: totalRead } = (type === undefined ? eventListReads.all : eventListReads.byType)();
  const values = { customer: customerId, type, limit: page.pageSize, offset: page.offset };
  const [rows, [count]] = await db.readBoth([pageRead, values], [totalRead, values]);
  return { rows, total: Number(count?.total ?? 0) };
}

/** The consumer has these events: the Cron Trigger need not send them again. */
export function markDispatched(orm: Database, ids: string[], at: string) {
  return orm.update(events).set({ dispatchedAt: at }).where(and(inArray(events.id, ids), isNull(events.dispatchedAt)));
}

/** Events written before `before` that the consumer never took, oldest first. */
export function undispatchedEvents(orm: Database, before: string, limit: number) {
  return orm.select().from(events).where(and(isNull(events.dispatchedAt), lt(events.createdAt, before))).orderBy(asc(events.createdAt)).limit(limit);
}

const SWEEP_CHUNK = 500;

/** For the Cron Trigger: deletes events older than `before` in bounded chunks, returning how many. */
export async function deleteEventsBefore(binding: D1Database, before: string): Promise<number> {
  const orm = drizzle(binding);
  let deleted = 0;
  for (;;) {
    const { meta } = await orm.run(sql`DELETE FROM ${events} WHERE rowid IN (SELECT rowid FROM ${events} WHERE ${events.createdAt} < ${before} LIMIT ${SWEEP_CHUNK})`);
    deleted += meta.changes;
    if (meta.changes < SWEEP_CHUNK) return deleted;
  }
}
