import { and, eq } from "drizzle-orm";
import type { CardOrderState } from "../domain/card-orders";
import { keptTotal, pageReads, readPage } from "./keyset";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { compile, lazily, preparer, one, param } from "./compiled";
import { keptLists, cardOrders, type CardOrderRow } from "./schema";

export function insertCardOrder(orm: Database, row: CardOrderRow) {
  return orm.insert(cardOrders).values(row);
}

const byId = lazily(() =>
  compile<CardOrderRow>(
    preparer()
      .select()
      .from(cardOrders)
      .where(and(eq(cardOrders.id, param("id")), eq(cardOrders.customerId, param("customer"))))
      .prepare(),
  ),
);

/** The customer's card order `id`, for a route's load step. */
export const orderRead = (customerId: string, id: string) => one(byId(), { id, customer: customerId });

export async function findCardOrder(
  db: RequestDatabase,
  customerId: string,
  id: string,
): Promise<CardOrderRow | undefined> {
  const [row] = await db.read(byId(), { id, customer: customerId });
  return row;
}

// One set of statements per filter, so that each has a fixed plan on its own index.
const listReads = (byState: boolean) =>
  pageReads<CardOrderRow>({
    table: cardOrders,
    where: and(
      eq(cardOrders.customerId, param("customer")),
      byState ? eq(cardOrders.state, param("state")) : undefined,
    )!,
    total: keptTotal(keptLists.cardOrders, param("customer"), param("filter")),
    key: [cardOrders.createdAt, cardOrders.id],
  });

const cardOrderListReads = { all: lazily(() => listReads(false)), byState: lazily(() => listReads(true)) };

/** One page of the customer's card orders, newest first, and their total (one round trip). */
export function listCardOrders(
  db: RequestDatabase,
  customerId: string,
  state: CardOrderState | undefined,
  page: PageRequest,
) {
  const reads = (state === undefined ? cardOrderListReads.all : cardOrderListReads.byState)();
  return readPage(db, reads, { customer: customerId, state, filter: state ?? "" }, page);
}
