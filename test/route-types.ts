import { reply } from "../src/http/reply";
import { CardOrder } from "../src/schemas/card-order";
import { sampleOf } from "./support/shape";
import { endpoint, type Handler } from "../src/http/route";
import * as cardOrderRoutes from "../src/routes/card-orders/card-orders.routes";
import type * as tokenRoutes from "../src/routes/notification-tokens/notification-tokens.routes";

// Routing keeps the types of a route's schemas all the way to its handler, in both directions.
// `npm run typecheck` checks this file, no test runs it (a runtime test here could not fail): each of
// the @ts-expect-error lines below must be an error, or tsc fails ("Unused '@ts-expect-error' directive").

// A card order body: any valid one (the plainest, from the resource's schema).
const order = sampleOf(CardOrder);

// A handler answering its route's success body compiles.
const good: Handler<typeof cardOrderRoutes.getCardOrder> = (c) => reply(c, 200, { data: order });

const wrongType: Handler<typeof cardOrderRoutes.getCardOrder> = (c) =>
  // @ts-expect-error a field of the wrong type
  reply(c, 200, { data: { ...order, entries_count: "0" } });

// @ts-expect-error a field missing
const missing: Handler<typeof cardOrderRoutes.getCardOrder> = (c) => reply(c, 200, { data: { id: "o" } });

// @ts-expect-error the list envelope where the route answers {data}
const wrongEnvelope: Handler<typeof cardOrderRoutes.getCardOrder> = (c) => reply(c, 200, [order]);

// @ts-expect-error a body where the route answers 204
const bodyOn204: Handler<typeof tokenRoutes.registerNotificationToken> = (c) => reply(c, 200, { ok: true });

// The validated body reaches the handler with its schema's type...
endpoint(cardOrderRoutes.createCardOrder, (c, { body }) => {
  const category: "mixed" | "meal" | "gift" = body.voucher_category;
  // @ts-expect-error ...and no field the schema does not have
  body.unknown_field;
  return reply(c, 201, {
    meta: { total_pages: 1, current_page: 1, page_size: 1, total_entries: 1 },
    data: [{ ...order, voucher_category: category }],
    links: { self: "", first: "", last: "", prev: null, next: null },
  });
});

// The query too: `page` is a number, `state` one of the card order states or absent.
endpoint(cardOrderRoutes.listCardOrders, (c, { query }) => {
  const page: number = query.page;
  // @ts-expect-error not a string
  const asText: string = query.state ?? page;
  return reply(c, 200, {
    meta: { total_pages: 1, current_page: page, page_size: 1, total_entries: 0 },
    data: [],
    links: { self: asText, first: "", last: "", prev: null, next: null },
  });
});

// Used, for the linter: what is checked here is that each of them compiles or fails to, as marked.
void [good, wrongType, missing, wrongEnvelope, bodyOn204];
