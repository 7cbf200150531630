import { and, desc, eq, sql } from "drizzle-orm";
import type { PageRequest } from "../pagination";
import type { Database } from "./client";
import { cardOrderCounts, cardOrders, type CardOrderRow } from "./schema";

export function insertCardOrder(orm: Database, row: CardOrderRow) {
  return orm.insert(cardOrders).values(row);
}

export function findCardOrder(orm: Database, customerId: string, id: string): Promise<CardOrderRow | undefined> {
  return orm.select().from(cardOrders).where(and(eq(cardOrders.id, id), eq(cardOrders.customerId, customerId))).get();
}

export interface CardOrderFilter {
  state?: string;
}

/** One page, newest first, and the total from the per-state counts (one round trip). */
export async function listCardOrders(orm: Database, customerId: string, filter: CardOrderFilter, page: PageRequest) {
  const [rows, count] = await orm.batch([
    orm
      .select()
      .from(cardOrders)
      .where(and(eq(cardOrders.customerId, customerId), filter.state === undefined ? undefined : eq(cardOrders.state, filter.state)))
      .orderBy(desc(cardOrders.createdAt), desc(cardOrders.id))
      .limit(page.pageSize)
      .offset(page.offset),
    orm
      .select({ total: sql<number>`coalesce(sum(${cardOrderCounts.total}), 0)` })
      .from(cardOrderCounts)
      .where(and(eq(cardOrderCounts.customerId, customerId), filter.state === undefined ? undefined : eq(cardOrderCounts.state, filter.state))),
  ]);
  return { rows, total: Number(count[0]?.total ?? 0) };
}
