import { and, desc, eq, sql } from "drizzle-orm";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { columnsOf, compile, lazily, param, queryBuilder as qb } from "./compiled";
import { cardOrderCounts, cardOrders, type CardOrderRow } from "./schema";

export function insertCardOrder(orm: Database, row: CardOrderRow) {
  return orm.insert(cardOrders).values(row);
}

export const byId = lazily(() =>
  compile<CardOrderRow>(qb.select().from(cardOrders).where(and(eq(cardOrders.id, param("id")), eq(cardOrders.customerId, param("customer")))), columnsOf(cardOrders)),
);

export async function findCardOrder(db: RequestDatabase, customerId: string, id: string): Promise<CardOrderRow | undefined> {
  const [row] = await db.read(byId(), { id, customer: customerId });
  return row;
}

interface CardOrderFilter {
  state?: string;
}

// One statement per filter combination, so that each has a fixed plan on its own index.
const listReads = (byState: boolean) => ({
  page: compile<CardOrderRow>(
    qb
      .select()
      .from(cardOrders)
      .where(and(eq(cardOrders.customerId, param("customer")), byState ? eq(cardOrders.state, param("state")) : undefined))
      .orderBy(desc(cardOrders.createdAt), desc(cardOrders.id))
      .limit(param("limit"))
      .offset(param("offset")),
    columnsOf(cardOrders),
  ),
  total: compile<{ total: number }>(
    qb
      .select({ total: sql<number>`coalesce(sum(${cardOrderCounts.total}), 0)`.as("total") })
      .from(cardOrderCounts)
      .where(and(eq(cardOrderCounts.customerId, param("customer")), byState ? eq(cardOrderCounts.state, param("state")) : undefined)),
    { total: "total" },
  ),
});

export const cardOrderListReads = { all: lazily(() => listReads(false)), byState: lazily(() => listReads(true)) };

/** One page, newest first, and the total from the per-state counts (one round trip). */
export async function listCardOrders(db: RequestDatabase, customerId: string, filter: CardOrderFilter, page: PageRequest) {
  const { page: pageRead, total: totalRead } = (filter.state === undefined ? cardOrderListReads.all : cardOrderListReads.byState)();
  const values = { customer: customerId, state: filter.state, limit: page.pageSize, offset: page.offset };
  const [rows, [count]] = await db.readBoth([pageRead, values], [totalRead, values]);
  return { rows, total: Number(count?.total ?? 0) };
}
