import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  BASE,
  businessDay,
  call,
  createCardOrder,
  createInvoice,
  newCardOrder,
  newEntry,
  orderIn,
  token,
  unique,
  withBillingProfile,
  type CallOptions,
} from "./support/api";

// D1 bills rows read, not rows returned: a COUNT(*) or a deep OFFSET pays for every row it passes.
// These budgets hold with 5,000 card orders (and 1,500 invoices) stored for one customer.

const ORDERS = 5000;
// Invoices are numbered in the year of their day in BUSINESS_TIME_ZONE (docs/api.md part 14), not UTC's.
const SEED_YEAR = Number(businessDay().slice(0, 4)) - 1;

// Card order i (1..5000) is in state STATE(i); every tenth pattern repeats, so each state holds
// a known share: 4/10 draft, 2/10 submitted, 1/10 in production, 2/10 delivered, 1/10 cancelled.
const STATE = `CASE WHEN i % 10 < 4 THEN 'draft' WHEN i % 10 < 6 THEN 'submitted' WHEN i % 10 = 6 THEN 'in_production'
  WHEN i % 10 < 9 THEN 'delivered' ELSE 'cancelled' END`;
// Created every 97 minutes through the seed year, so that "newest first" means something.
const CREATED = `strftime('%Y-%m-%dT%H:%M:%fZ', ?3, '+' || (i * 97) || ' minutes')`;
const COST_CENTER = `'CC-' || (i % 7)`;
const PAYMENT_METHOD = `CASE i % 2 WHEN 0 THEN 'bank_transfer' ELSE 'direct_debit' END`;
const ORDER_ID = `printf('c%07d-0000-4000-8000-%012d', ?2, i)`;
const INVOICE_ID = `printf('e%07d-0000-4000-8000-%012d', ?2, i)`;
const SEQUENCE = `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${ORDERS})`;

const SEEDED_ORDERS = { draft: 2000, submitted: 1000, in_production: 500, delivered: 1000, cancelled: 500 };
// Orders in production (i % 10 = 6) and delivered (7, 8) have an invoice: paid for 7, cancelled for
// half of 6, open otherwise.
const SEEDED_INVOICES = { open: 750, paid: 500, cancelled: 250 };
const INVOICED = `i % 10 IN (6, 7, 8)`;
const INVOICE_STATE = `CASE WHEN i % 10 = 7 THEN 'paid' WHEN i % 20 = 6 THEN 'cancelled' ELSE 'open' END`;

let seeds = 0;

/**
 * Stores 5,000 card orders and 1,500 invoices for `customer` the way the app would: through the
 * count triggers, numbers taken from the sequences of the seed year, each invoice linked from its
 * order. Returns the ids of card order i and invoice i. (Their booked_on is created_at's UTC day, not
 * the Berlin day the service would give them, which SQLite cannot compute: no budget depends on it.)
 */
async function seedCustomer(customer: string) {
  const tag = ++seeds;
  const last = async (series: string) =>
    (await env.DB.prepare("SELECT last FROM number_sequences WHERE series = ? AND year = ?")
      .bind(series, SEED_YEAR)
      .first<number>("last")) ?? 0;
  const [invoiceBase, cancellationBase] = [await last("INV"), await last("CN")];
  const invoices = SEEDED_INVOICES.open + SEEDED_INVOICES.paid + SEEDED_INVOICES.cancelled;
  const stamp = (states: string) => `CASE WHEN state IN (${states}) THEN created END`;

  await env.DB.batch([
    env.DB.prepare(
      `${SEQUENCE}, rows AS (SELECT i, ${STATE} AS state, ${CREATED} AS created FROM seq)
      INSERT INTO card_orders (id, customer_id, state, created_at, updated_at, submitted_at, production_started_at,
        delivered_at, description, invoice_reference, cost_center, payment_method, voucher_category)
      SELECT ${ORDER_ID}, ?1, state, created, created, ${stamp("'submitted', 'in_production', 'delivered'")},
        ${stamp("'in_production', 'delivered'")}, ${stamp("'delivered'")}, 'Order ' || i, NULL, ${COST_CENTER},
        ${PAYMENT_METHOD}, CASE i % 3 WHEN 0 THEN 'mixed' WHEN 1 THEN 'meal' ELSE 'gift' END
      FROM rows`,
    ).bind(customer, tag, `${SEED_YEAR}-01-01`),
    // One entry per order, through the triggers that keep entries_count and entries_amount.
    env.DB.prepare(
      `${SEQUENCE}
      INSERT INTO card_order_entries (id, order_id, voucher_owner_id, card_holder_name, amount, created_at, updated_at)
      SELECT printf('f%07d-0000-4000-8000-%012d', ?2, i), ${ORDER_ID}, 'owner-' || (i % 50), 'Holder ' || i, 2500,
        ${CREATED}, ${CREATED} FROM seq`,
    ).bind(customer, tag, `${SEED_YEAR}-01-01`),
    env.DB.prepare(
      `${SEQUENCE}, picked AS (SELECT i, ${INVOICE_STATE} AS state, ${CREATED} AS created FROM seq WHERE ${INVOICED}),
      numbered AS (SELECT *, ROW_NUMBER() OVER (ORDER BY i) AS n,
        ROW_NUMBER() OVER (PARTITION BY state = 'cancelled' ORDER BY i) AS cn FROM picked)
      INSERT INTO invoices (id, customer_id, number, state, created_at, updated_at, booked_on, creditor, due_on,
        paid_at, cancellation_number, cancelled_at, order_id, order_state, reference, cost_center, payment_method)
      SELECT ${INVOICE_ID}, ?1, printf('INV-%d-%06d', ?4, ?5 + n), state, created, created, substr(created, 1, 10),
        'Voucher Cards GmbH', date(created, '+14 days'), CASE state WHEN 'paid' THEN created END,
        CASE state WHEN 'cancelled' THEN printf('CN-%d-%06d', ?4, ?6 + cn) END,
        CASE state WHEN 'cancelled' THEN created END,
        ${ORDER_ID}, (SELECT o.state FROM card_orders o WHERE o.id = ${ORDER_ID}), 'Ref ' || i, ${COST_CENTER},
        ${PAYMENT_METHOD}
      FROM numbered`,
    ).bind(customer, tag, `${SEED_YEAR}-01-01`, SEED_YEAR, invoiceBase, cancellationBase),
    env.DB.prepare(
      `UPDATE card_orders SET invoice_id = (SELECT id FROM invoices WHERE order_id = card_orders.id),
        invoice_number = (SELECT number FROM invoices WHERE order_id = card_orders.id)
      WHERE customer_id = ?1 AND id IN (SELECT order_id FROM invoices WHERE customer_id = ?1)`,
    ).bind(customer),
    env.DB.prepare(
      `INSERT INTO number_sequences (series, year, last) VALUES ('INV', ?1, ?2), ('CN', ?1, ?3)
      ON CONFLICT (series, year) DO UPDATE SET last = excluded.last`,
    ).bind(SEED_YEAR, invoiceBase + invoices, cancellationBase + SEEDED_INVOICES.cancelled),
  ]);
  const pad = (n: number) => String(n).padStart(12, "0");
  const prefix = String(tag).padStart(7, "0");
  return {
    orderId: (i: number) => `c${prefix}-0000-4000-8000-${pad(i)}`,
    invoiceId: (i: number) => `e${prefix}-0000-4000-8000-${pad(i)}`,
  };
}

interface Usage {
  queries: number;
  rowsRead: number;
  rowsWritten: number;
}

/** Calls the Worker and reads the D1 usage from the one log line of that request. */
async function measure(
  path: string,
  options: CallOptions = {},
): Promise<{ response: Response; body: any; usage: Usage }> {
  const lines: unknown[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(line));
  let response: Response;
  try {
    response = await call(path, options);
  } finally {
    spy.mockRestore();
  }
  const requestId = response.headers.get("X-Request-Id");
  const entries = lines
    .filter((line): line is string => typeof line === "string" && line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.request_id === requestId);
  expect(entries, `log line of ${path}`).toHaveLength(1);
  const [entry] = entries;
  const text = await response.text();
  return {
    response,
    body: text ? JSON.parse(text) : undefined,
    usage: { queries: entry.d1_queries, rowsRead: entry.d1_rows_read, rowsWritten: entry.d1_rows_written },
  };
}

/** A request that must answer `status` and read at most `budget` rows. */
async function withinBudget(budget: number, status: number, path: string, options: CallOptions = {}) {
  const result = await measure(path, options);
  expect({ path, status: result.response.status }).toStrictEqual({ path, status });
  expect(
    result.usage.rowsRead,
    `rows read by ${options.method ?? (options.json ? "POST" : "GET")} ${path}`,
  ).toBeLessThanOrEqual(budget);
  return result;
}

/**
 * 499 entries on `order` in one statement (the count triggers keep entries_count), ids
 * `<prefix>0000000-...-000000000001` on.
 */
const add499Entries = (order: string, prefix: string) =>
  env.DB.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 499)
    INSERT INTO card_order_entries (id, order_id, voucher_owner_id, card_holder_name, amount, created_at, updated_at)
    SELECT printf('${prefix}0000000-0000-4000-8000-%012d', i), ?1, 'owner', 'Holder', 100,
      strftime('%Y-%m-%dT%H:%M:%fZ', '2030-01-01', '+' || i || ' seconds'), '2030-01-01T00:00:00.000Z' FROM seq`,
  )
    .bind(order)
    .run();

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

describe("metering", () => {
  it("reports no queries and no rows for a request that touches no database", async () => {
    const { usage } = await withinBudget(0, 200, "/health");
    expect(usage).toStrictEqual({ queries: 0, rowsRead: 0, rowsWritten: 0 });
  });

  it("reports nothing for a request refused before any lookup", async () => {
    const { usage } = await withinBudget(0, 401, "/card_orders");
    expect(usage).toStrictEqual({ queries: 0, rowsRead: 0, rowsWritten: 0 });
  });

  it("reports the rows a list reads and the rows a create writes", async () => {
    const auth = await token();
    for (let i = 0; i < 3; i++) await createCardOrder(auth);

    const list = await measure("/card_orders", { token: auth });
    expect(list.body.data).toHaveLength(3);
    expect(list.usage.queries).toBe(2);
    // At least the three orders themselves.
    expect(list.usage.rowsRead).toBeGreaterThanOrEqual(3);
    expect(list.usage.rowsWritten).toBe(0);

    const create = await measure("/card_orders", { token: auth, json: newCardOrder });
    expect(create.response.status).toBe(201);
    expect(create.usage.queries).toBe(1);
    // The order and its counts row at least.
    expect(create.usage.rowsWritten).toBeGreaterThanOrEqual(2);
  });

  it("reports as many rows read as D1 reports for the same statement", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const order = await createCardOrder(auth);
    const direct = await env.DB.prepare("SELECT * FROM card_orders WHERE id = ? AND customer_id = ?")
      .bind(order.id, customer)
      .all();
    expect(direct.meta.rows_read).toBeGreaterThan(0);

    const { usage } = await measure(`/card_orders/${order.id}`, { token: auth });
    expect(usage).toStrictEqual({ queries: 1, rowsRead: direct.meta.rows_read, rowsWritten: 0 });
  });
});

/** A page by cursor or number reads its rows, one more to see where they end, and its total: no more. */
const pageBudget = (pageSize: number) => pageSize + 2;

/**
 * Follows `next` from `path` to the end of the list: every page within `pageBudget`; the ids of
 * every row, in order. Also checks that `last` lands on the last page within budget.
 */
async function followNext(path: string, auth: string, pageSize: number, firstPageExtra = 0): Promise<string[]> {
  const ids: string[] = [];
  let url: string | null = `${path}${path.includes("?") ? "&" : "?"}page_size=${pageSize}`;
  let first: any;
  let pages = 0;
  while (url) {
    const { body } = await withinBudget(pageBudget(pageSize) + (pages === 0 ? firstPageExtra : 0), 200, url, {
      token: auth,
    });
    first ??= body;
    pages += 1;
    expect(body.meta.current_page).toBe(pages);
    ids.push(
      ...body.data.map((item: { id?: string; device_identifier?: string }) => item.id ?? item.device_identifier),
    );
    url = body.links.next?.slice(BASE.length) ?? null;
  }
  // The walk ends on the last page, full or not: each page reads one row ahead (docs/api.md part 4).
  const { total_entries: total, total_pages: totalPages } = first.meta;
  expect(pages).toBe(totalPages);
  expect(ids).toHaveLength(total);
  const last = await withinBudget(pageBudget(pageSize), 200, first.links.last.slice(BASE.length), { token: auth });
  expect(
    last.body.data.map((item: { id?: string; device_identifier?: string }) => item.id ?? item.device_identifier),
  ).toStrictEqual(ids.slice((totalPages - 1) * pageSize));
  return ids;
}

describe("reads, with 5,000 card orders and 1,500 invoices of one customer", () => {
  const customer = unique("big-customer");
  let auth: string;
  let ids: Awaited<ReturnType<typeof seedCustomer>>;

  beforeAll(async () => {
    ids = await seedCustomer(customer);
    auth = await token({ customer_id: customer });
  }, 60_000);

  it("the seed went through the count triggers and links each invoice from its order", async () => {
    const counts = async (list: string) => {
      const { results } = await env.DB.prepare("SELECT filter, total FROM list_counts WHERE list = ? AND scope = ?")
        .bind(list, customer)
        .all<{ filter: string; total: number }>();
      return Object.fromEntries(results.map((row) => [row.filter || "all", row.total]));
    };
    expect(await counts("card_orders")).toStrictEqual({ all: ORDERS, ...SEEDED_ORDERS });
    expect(await counts("invoices")).toStrictEqual({ all: sum(SEEDED_INVOICES), ...SEEDED_INVOICES });
    const unlinked = await env.DB.prepare(
      "SELECT count(*) AS n FROM invoices i JOIN card_orders o ON o.id = i.order_id " +
        "WHERE i.customer_id = ? AND (o.invoice_id IS NOT i.id OR o.invoice_number IS NOT i.number)",
    )
      .bind(customer)
      .first<number>("n");
    expect(unlinked).toBe(0);
  });

  it("GET /card_orders: page 1 reads its 25 rows and one row of the kept total", async () => {
    const { body } = await withinBudget(pageBudget(25), 200, "/card_orders?page_size=25", { token: auth });
    expect(body.meta).toStrictEqual({ total_pages: 200, current_page: 1, page_size: 25, total_entries: ORDERS });
    expect(body.data).toHaveLength(25);
    // The newest: order 5000 was created last.
    expect(body.data[0].id).toBe(ids.orderId(5000));
    expect(body.data[24].id).toBe(ids.orderId(4976));
  });

  it("GET /card_orders: following next reads a page per page to the end, all 5,000 once, in order", {
    timeout: 120_000,
  }, async () => {
    const seen = await followNext("/card_orders", auth, 25);
    expect(seen).toStrictEqual(Array.from({ length: ORDERS }, (_, i) => ids.orderId(ORDERS - i)));
  });

  it.each(Object.entries(SEEDED_ORDERS))(
    "GET /card_orders?state=%s: following next reads a page per page (%i orders)",
    { timeout: 60_000 },
    async (state, total) => {
      expect(await followNext(`/card_orders?state=${state}`, auth, 100)).toHaveLength(total);
    },
  );

  it("GET /card_orders: a page past the end reads 2 rows, and its prev leads to the last page by cursor", async () => {
    const { body } = await withinBudget(2, 200, "/card_orders?page=9999&page_size=25", { token: auth });
    expect(body.data).toStrictEqual([]);
    const last = await withinBudget(pageBudget(25), 200, body.links.prev.slice(BASE.length), { token: auth });
    expect(last.body.data.at(-1).id).toBe(ids.orderId(1));
  });

  // Before cursors, page 200 by number walked the 4,975 rows before it; it still does when a client
  // asks by number alone (page numbers imply it), but following links never does.
  it("GET /card_orders: page 200 by number alone pays for the rows it skips, once", async () => {
    const { body, usage } = await withinBudget(ORDERS + pageBudget(25), 200, "/card_orders?page=200&page_size=25", {
      token: auth,
    });
    expect(body.data.at(-1).id).toBe(ids.orderId(1));
    expect(usage.rowsRead).toBeGreaterThan(ORDERS - 25);
  });

  it("GET /card_orders/{id} reads at most 5 rows", async () => {
    const { body } = await withinBudget(5, 200, `/card_orders/${ids.orderId(2507)}`, { token: auth });
    expect(body.data).toMatchObject({
      id: ids.orderId(2507),
      state: "delivered",
      invoice: { id: ids.invoiceId(2507), type: "invoice" },
    });
  });

  it("GET /card_orders/{id} of an id that does not exist reads at most 5 rows", async () => {
    await withinBudget(5, 404, `/card_orders/${ids.orderId(ORDERS + 1)}`, { token: auth });
  });

  it("GET /invoices: following next reads a page per page, all 1,500 once; each state too", {
    timeout: 120_000,
  }, async () => {
    const all = await followNext("/invoices", auth, 25);
    expect(all).toHaveLength(sum(SEEDED_INVOICES));
    expect(all[0]).toBe(ids.invoiceId(4998));
    for (const [state, total] of Object.entries(SEEDED_INVOICES))
      expect(await followNext(`/invoices?state=${state}`, auth, 100)).toHaveLength(total);
  });

  // An order's invoices are a handful: its own index, its kept count and the check that the order is
  // the customer's (read again by the page's LIMIT), whatever the customer has.
  it.each([
    ["an invoiced order", () => `/invoices?order_id=${ids.orderId(1237)}`, 1],
    ["an order without an invoice", () => `/invoices?order_id=${ids.orderId(1)}`, 0],
    ["an order and a state", () => `/invoices?state=cancelled&order_id=${ids.orderId(1226)}`, 1],
    ["another customer's order", () => `/invoices?order_id=${crypto.randomUUID()}`, 0],
  ])("GET /invoices by %s reads at most 6 rows", async (_, path, total) => {
    const { body } = await withinBudget(6, 200, path(), { token: auth });
    expect(body.meta.total_entries).toBe(total);
    expect(body.data).toHaveLength(total);
  });

  it("GET /card_orders/{id}/entries: following next through 500 entries reads a page per page, counted by the order", {
    timeout: 60_000,
  }, async () => {
    const order = ids.orderId(3);
    await add499Entries(order, "a");
    // Page 1 also reads the order row, to see the order is the customer's; the cursors after it were
    // signed for this customer's list.
    const seen = await followNext(`/card_orders/${order}/entries`, auth, 25, 1);
    expect(seen).toHaveLength(500);
    expect(seen[0]).toBe("a0000000-0000-4000-8000-000000000499");
    await withinBudget(2, 200, `/card_orders/${order}/entries?page=99`, { token: auth });
  });

  it("GET /card_orders/{id}/entries of another customer's order reads at most 2 rows", async () => {
    await withinBudget(2, 404, `/card_orders/${ids.orderId(3)}/entries`, { token: await token() });
  });

  it("GET /invoices/{id} reads at most 5 rows", async () => {
    const { body } = await withinBudget(5, 200, `/invoices/${ids.invoiceId(4998)}`, { token: auth });
    expect(body.data).toMatchObject({
      id: ids.invoiceId(4998),
      state: "open",
      orders: [{ id: ids.orderId(4998), state: "delivered" }],
    });
  });
});

describe("reads of the other lists at their largest", () => {
  it("GET /events: following next through 5,000 events reads a page per page; by type too; past the end 2 rows", {
    timeout: 120_000,
  }, async () => {
    const customer = unique("events-customer");
    const auth = await token({ customer_id: customer });
    // One real event (a submitted order), then 4,999 more with its data, through the count triggers.
    await orderIn(auth, "submitted");
    const types = ["card_order.submitted", "invoice.created", "invoice.paid"];
    await env.DB.prepare(
      `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${ORDERS - 1})
      INSERT INTO events (id, customer_id, type, created_at, data, dispatched_at)
      SELECT printf('b0000000-0000-4000-8000-%012d', i), ?1, CASE i % 3 WHEN 0 THEN ?2 WHEN 1 THEN ?3 ELSE ?4 END,
        strftime('%Y-%m-%dT%H:%M:%fZ', '2020-01-01', '+' || i || ' seconds'),
        (SELECT data FROM events WHERE customer_id = ?1 LIMIT 1), '2026-01-01T00:00:00.000Z' FROM seq`,
    )
      .bind(customer, ...types)
      .run();
    const seen = await followNext("/events", auth, 50);
    expect(seen).toHaveLength(ORDERS);
    expect(seen[1]).toBe(`b0000000-0000-4000-8000-${String(ORDERS - 1).padStart(12, "0")}`);
    expect(await followNext("/events?type=invoice.paid", auth, 100)).toHaveLength(Math.floor((ORDERS - 1 + 1) / 3));
    await withinBudget(2, 200, "/events?page=500", { token: auth });
  });

  it("GET notification devices (20 at most) and webhook endpoints (10 at most): a page per page", async () => {
    const owner = await token({ sub: unique("owner") });
    for (let i = 0; i < 20; i++) {
      expect(
        (
          await call("/voucher_owners/me/notification_tokens", {
            token: owner,
            method: "PUT",
            json: { value: unique("v"), device_identifier: `d-${i}` },
          })
        ).status,
      ).toBe(204);
    }
    expect(await followNext("/voucher_owners/me/notification_tokens", owner, 3)).toHaveLength(20);
    const auth = await token();
    for (let i = 0; i < 10; i++)
      expect(
        (
          await call("/webhook_endpoints", {
            token: auth,
            json: { url: `https://hooks.example/${i}`, event_types: ["*"] },
          })
        ).status,
      ).toBe(201);
    expect(await followNext("/webhook_endpoints", auth, 3)).toHaveLength(10);
  });
});

describe("writes, with 5,000 card orders and 1,500 invoices of one customer", () => {
  const customer = unique("big-writer");
  let auth: string;
  let ids: Awaited<ReturnType<typeof seedCustomer>>;

  beforeAll(async () => {
    ids = await seedCustomer(customer);
    auth = await token({ customer_id: customer });
    await withBillingProfile(auth);
  }, 60_000);

  const post = (options: CallOptions = {}) => ({ token: auth, method: "POST", ...options });

  it("POST /card_orders reads at most 10 rows", async () => {
    const { usage } = await withinBudget(10, 201, "/card_orders", { token: auth, json: newCardOrder });
    expect(usage.rowsWritten).toBeGreaterThan(0);
  });

  it("POST /card_orders with an Idempotency-Key reads at most 10 rows, and so does its replay", async () => {
    const headers = { "Idempotency-Key": unique("key") };
    const first = await withinBudget(10, 201, "/card_orders", { token: auth, json: newCardOrder, headers });
    const replay = await withinBudget(10, 201, "/card_orders", { token: auth, json: newCardOrder, headers });
    expect(replay.body).toStrictEqual(first.body);
    expect(replay.usage.rowsWritten).toBe(0);
  });

  // A transition that issues an invoice (production, shipping) pays what POST /invoices pays, and
  // each event its count row. Every invoice written also moves the accounts department's kept totals
  // (docs/api.md part 18, drizzle/0016_accounts_view.sql): every customer's, by state, and the open
  // ones' by due day, for every customer and for its own: a few rows of list_counts more.
  it.each([
    ["submit", "draft", "submitted", 1, 12],
    ["cancel", "submitted", "cancelled", 5, 12],
    ["start_production", "submitted", "in_production", 4, 28],
    ["deliver", "in_production", "delivered", 16, 30],
  ])(
    "POST /card_orders/{id}/%s (from %s to %s) reads at most its budget of rows",
    async (action, _from, to, i, budget) => {
      const { body, usage } = await withinBudget(
        budget as number,
        200,
        `/card_orders/${ids.orderId(i as number)}/${action}`,
        post(),
      );
      expect(body.data).toMatchObject({ id: ids.orderId(i as number), state: to });
      expect(usage.rowsWritten).toBeGreaterThan(0);
    },
  );

  it("a transition with an Idempotency-Key reads at most 10 rows", async () => {
    await withinBudget(
      10,
      200,
      `/card_orders/${ids.orderId(11)}/submit`,
      post({ headers: { "Idempotency-Key": unique("key") } }),
    );
  });

  it("a transition refused from the wrong state reads at most 10 rows", async () => {
    await withinBudget(10, 409, `/card_orders/${ids.orderId(9)}/submit`, post());
  });

  // A voucher invoice also reads the customer's billing profile (its buyer) and the order's entries
  // through their index (its lines): one entry per seeded order. 20 rows here; its delivery (docs/api.md
  // part 17) up to 4 more: its insert upserts the 4 kept totals of the deliveries' lists; and 2 more for
  // the accounts department's (part 18), of every customer's invoices and the open ones by due day.
  const INVOICE_BUDGET = 28;

  it("POST /invoices reads at most 28 rows, with its buyer and its lines", async () => {
    const { body } = await withinBudget(INVOICE_BUDGET, 201, "/invoices", {
      token: auth,
      json: { order_id: ids.orderId(14) },
    });
    const [invoice] = body.data;
    expect(invoice.number).toMatch(new RegExp(`^INV-${businessDay(invoice.created_at).slice(0, 4)}-\\d{6}$`));
    expect(invoice.booked_on).toBe(businessDay(invoice.created_at));
  });

  it("POST /invoices with an Idempotency-Key reads at most 28 rows, and so does its replay", async () => {
    const options = { token: auth, json: { order_id: ids.orderId(15) }, headers: { "Idempotency-Key": unique("key") } };
    const first = await withinBudget(INVOICE_BUDGET, 201, "/invoices", options);
    const replay = await withinBudget(INVOICE_BUDGET, 201, "/invoices", options);
    expect(replay.body).toStrictEqual(first.body);
  });

  it("POST /invoices for an order that has one reads at most 15 rows", async () => {
    await withinBudget(15, 409, "/invoices", { token: auth, json: { order_id: ids.orderId(8) } });
  });

  // A cancel also writes its credit note's delivery from the billing profile (docs/api.md part 17): its row
  // and the 4 kept totals of the deliveries' lists, up to 5 rows more.
  it.each([
    ["pay", "paid", 8, 11],
    ["cancel", "cancelled", 18, 15],
  ])("POST /invoices/{id}/%s reads at most %i rows", async (action, to, i, budget) => {
    const { body } = await withinBudget(
      budget as number,
      200,
      `/invoices/${ids.invoiceId(i as number)}/${action}`,
      post(),
    );
    expect(body.data).toMatchObject({ id: ids.invoiceId(i as number), state: to });
  });

  it("the totals include what the API wrote next to the seeded rows", async () => {
    // The tests above ran first, in order: 2 drafts created (the replay wrote nothing), orders 1 and
    // 11 submitted, 5 cancelled, 4 into production (with its production invoice), 16 delivered
    // (with its shipping invoice); invoices for orders 14 and 15, invoice 8 paid, invoice 18
    // cancelled. Plus a submitted order and its invoice here.
    const extra = await orderIn(auth, "submitted");
    await createInvoice(auth, extra.id);
    const orders = {
      draft: 2000 + 2 - 2,
      submitted: 1000 + 2 + 1 - 2,
      in_production: 500 + 1 - 1,
      delivered: 1000 + 1,
      cancelled: 500 + 1,
    };
    const invoices = { open: 750 + 1 + 1 + 2 + 1 - 2, paid: 500 + 1, cancelled: 250 + 1 };
    for (const [state, total] of Object.entries(orders)) {
      const { body } = await withinBudget(35, 200, `/card_orders?state=${state}`, { token: auth });
      expect({ state, total: body.meta.total_entries }).toStrictEqual({ state, total });
    }
    const all = await withinBudget(35, 200, "/card_orders", { token: auth });
    expect(all.body.meta.total_entries).toBe(sum(orders));
    for (const [state, total] of Object.entries(invoices)) {
      const { body } = await withinBudget(invoicePageBudget(25), 200, `/invoices?state=${state}`, { token: auth });
      expect({ state, total: body.meta.total_entries }).toStrictEqual({ state, total });
    }
  });

  // After the totals above, which these would move.
  // Entries count themselves on their order (entries_count): adding the 500th, refusing the 501st and
  // deleting one read the order and the entry, never the order's other entries.
  it("POST and DELETE /card_orders/{id}/entries read at most 10 rows, also at 499 and 500 entries", async () => {
    const order = (await createCardOrder(auth)).id;
    await add499Entries(order, "b");
    const added = await withinBudget(10, 201, `/card_orders/${order}/entries`, { token: auth, json: newEntry });
    expect(added.body.data[0]).toMatchObject({ type: "card_order_entry", amount: newEntry.amount });
    // The 501st: the order is full.
    const full = await withinBudget(10, 409, `/card_orders/${order}/entries`, { token: auth, json: newEntry });
    expect(full.body.errors[0].code).toBe("conflict");
    await withinBudget(10, 204, `/card_orders/${order}/entries/${added.body.data[0].id}`, {
      token: auth,
      method: "DELETE",
    });
  });

  // The budget of start_production and deliver: cancelling the invoice draws a cancellation number
  // from its sequence as issuing one draws an invoice number; the invoice leaving the open ones moves the
  // accounts department's kept totals (part 18).
  it("POST /card_orders/{id}/cancel with an open invoice, which it cancels too, reads at most 34 rows", async () => {
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    const { body } = await withinBudget(34, 200, `/card_orders/${order.id}/cancel`, post());
    expect(body.data).toMatchObject({ id: order.id, state: "cancelled" });
    const { body: after } = await measure(`/invoices/${invoice.id}`, { token: auth });
    expect(after.data).toMatchObject({
      state: "cancelled",
      cancellation_number: expect.stringMatching(/^CN-\d{4}-\d{6}$/),
    });
  });
});

// A list page reads each invoice (its order's state is stored with it), plus at most one counts row
// per invoice state (3), within the same budget as a card-order page.
function invoicePageBudget(pageSize: number): number {
  return pageSize + 10;
}
