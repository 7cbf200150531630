import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, expectJson, follow, listLink, post, token, unique } from "./support/api";
import { businessToday, invoiceOf } from "./support/payments";
import { addDays } from "../src/domain/time";

// docs/api.md part 18, the accounts department's view: GET /invoices and GET /invoices/{id} across
// customers for a payments:read token without customer_id, with the state, customer, overdue and
// dunning filters, for a customer's token too (its own invoices only). Every expectation is derived
// from the stored rows, read straight from D1, never from the code under test.

type Invoice = { id: string; created_at: string; state: string; [field: string]: unknown };

/** The accounts department: payments:read, no customer (docs/api.md part 2's back office). */
const accounts = () => token({ customer_id: undefined, scope: "payments:read" });

interface Stored {
  id: string;
  customer_id: string;
  state: string;
  due_on: string;
  dunning_state: string;
  open: number;
}

/** Every stored invoice, newest first (the list order of docs/api.md part 4), with its open amount in cents. */
async function stored(): Promise<Stored[]> {
  const { results } = await env.DB.prepare(
    "SELECT id, customer_id, state, due_on, dunning_state, coalesce(gross_amount, 0) - allocated_amount AS open " +
      "FROM invoices ORDER BY created_at DESC, id DESC",
  ).all<Stored>();
  return results;
}

const overdue = (today: string) => (row: Stored) => row.state === "open" && row.open > 0 && row.due_on < today;

/** Sets stored columns an invoice gets from the dunning run (part 18) or from time passing. */
const setStored = (id: string, columns: Partial<Pick<Stored, "due_on" | "dunning_state">>) =>
  env.DB.prepare(
    `UPDATE invoices SET ${Object.keys(columns)
      .map((name) => `${name} = ?`)
      .join(", ")} WHERE id = ?`,
  )
    .bind(...Object.values(columns), id)
    .run();

/** Every page of a list, following `next` from page 1 (page_size 2): the rows in order and each page's total. */
async function walk(auth: string, path: string) {
  const separator = path.includes("?") ? "&" : "?";
  let page = await expectJson(await call(`${path}${separator}page_size=2`, { token: auth }), 200, expect.anything());
  const rows: Invoice[] = [...page.data];
  const totals = [page.meta.total_entries];
  while (page.links.next) {
    page = await follow(page.links.next, auth);
    rows.push(...page.data);
    totals.push(page.meta.total_entries);
  }
  return { rows, totals };
}

/** The invoice as its own customer reads it: what the accounts department must see too, byte for byte. */
const asOwnerSees = async (auth: string, id: string) =>
  ((await (await call(`/invoices/${id}`, { token: auth })).json()) as { data: Invoice }).data;

const today = businessToday();
const [alpha, beta] = [unique("alpha"), unique("beta")];
let alphaAuth: string;
let betaAuth: string;
// Alpha: open overdue (dunning active), open overdue (held), open due today, paid (stored dunning active:
// it reads settled), cancelled; beta: open overdue (ended), open not yet due, open overdue partly paid.
const ids: Record<string, string> = {};
const owners: Record<string, string> = {};
const orderOf: Record<string, string> = {};

beforeAll(async () => {
  alphaAuth = await token({
    customer_id: alpha,
    scope: "invoices:read invoices:write card_orders:read card_orders:write fulfilment",
  });
  betaAuth = await token({
    customer_id: beta,
    scope: "invoices:read invoices:write card_orders:read card_orders:write fulfilment",
  });
  const make = async (name: string, auth: string) => {
    const invoice = await invoiceOf(auth, "100.00");
    ids[name] = invoice.id;
    owners[invoice.id] = auth;
    orderOf[name] = invoice.orders[0].id;
  };
  await make("chased", alphaAuth);
  await make("held", alphaAuth);
  await make("dueToday", alphaAuth);
  await make("paid", alphaAuth);
  await make("cancelled", alphaAuth);
  await make("ended", betaAuth);
  await make("notDue", betaAuth);
  await make("partlyPaid", betaAuth);

  await setStored(ids.chased!, { due_on: addDays(today, -10), dunning_state: "active" });
  await setStored(ids.held!, { due_on: addDays(today, -1), dunning_state: "held" });
  await setStored(ids.dueToday!, { due_on: today });
  await setStored(ids.paid!, { due_on: addDays(today, -20), dunning_state: "active" });
  expect((await post(`/invoices/${ids.paid}/pay`, alphaAuth)).status).toBe(200);
  await setStored(ids.cancelled!, { due_on: addDays(today, -20) });
  expect((await post(`/invoices/${ids.cancelled}/cancel`, alphaAuth)).status).toBe(200);
  await setStored(ids.ended!, { due_on: addDays(today, -60), dunning_state: "ended" });
  await setStored(ids.notDue!, { due_on: addDays(today, 3) });
  await setStored(ids.partlyPaid!, { due_on: addDays(today, -2) });
  // A partial payment, as part 15 records it: the open amount falls, the invoice stays open.
  await env.DB.prepare("UPDATE invoices SET allocated_amount = 4000 WHERE id = ?").bind(ids.partlyPaid).run();
});

describe("GET /invoices for the accounts department (payments:read, no customer_id)", () => {
  it("lists every customer's invoices newest first, as each customer reads them, with the kept total", async () => {
    const auth = await accounts();
    const rows = await stored();
    const body = await expectJson(await call("/invoices?page_size=100", { token: auth }), 200, {
      meta: { total_pages: 1, current_page: 1, page_size: 100, total_entries: rows.length },
      data: await Promise.all(rows.map((row) => asOwnerSees(owners[row.id]!, row.id))),
      links: {
        self: listLink("/invoices?page_size=100&page=1"),
        first: listLink("/invoices?page_size=100&page=1"),
        last: listLink("/invoices?page_size=100&page=1"),
        prev: null,
        next: null,
      },
    });
    expect(new Set(body.data.map((invoice: Invoice) => invoice.id))).toStrictEqual(new Set(Object.values(ids)));
  });

  it.each([
    ["state=open", (row: Stored) => row.state === "open"],
    ["state=paid", (row: Stored) => row.state === "paid"],
    ["state=cancelled", (row: Stored) => row.state === "cancelled"],
    [`customer=${alpha}`, (row: Stored) => row.customer_id === alpha],
    [`customer=${beta}&state=open`, (row: Stored) => row.customer_id === beta && row.state === "open"],
    ["customer=nobody", () => false],
    ["customer=&overdue=true", () => false],
    ["customer=&dunning=active", () => false],
    ["overdue=true", overdue(today)],
    [`overdue=true&customer=${beta}`, (row: Stored) => overdue(today)(row) && row.customer_id === beta],
    ["overdue=true&state=open", overdue(today)],
    ["overdue=true&state=paid", () => false],
    ["dunning=active", (row: Stored) => row.state === "open" && row.dunning_state === "active"],
    ["dunning=held", (row: Stored) => row.state === "open" && row.dunning_state === "held"],
    ["dunning=ended", (row: Stored) => row.state === "open" && row.dunning_state === "ended"],
    [`dunning=ended&customer=${alpha}`, () => false],
    [`dunning=held&overdue=true&customer=${alpha}`, (row: Stored) => row.id === ids.held],
    ["dunning=active&state=cancelled", () => false],
    ["order_id=<paid's order>", (row: Stored) => row.id === ids.paid],
    ["order_id=<paid's order>&state=open", () => false],
    [`order_id=<ended's order>&customer=${beta}`, (row: Stored) => row.id === ids.ended],
    [`order_id=<ended's order>&customer=${alpha}`, () => false],
  ])("?%s: exactly the matching invoices, newest first, every page with the exact total", async (query, keep) => {
    const expected = (await stored()).filter(keep).map((row) => row.id);
    const path = `/invoices?${query.replace(/<(\w+)'s order>/, (_, name: string) => orderOf[name]!)}`;
    const { rows, totals } = await walk(await accounts(), path);
    expect(rows.map((invoice) => invoice.id)).toStrictEqual(expected);
    expect(new Set(totals)).toStrictEqual(new Set([expected.length]));
  });

  it("overdue: open with an open amount and due before today; a paid invoice's dunning is settled, never listed", async () => {
    const listed = async (query: string) =>
      (await walk(await accounts(), `/invoices?${query}`)).rows.map((invoice) => invoice.id).sort();
    expect(await listed("overdue=true")).toStrictEqual([ids.chased, ids.held, ids.ended, ids.partlyPaid].sort());
    expect(await listed("dunning=active")).toStrictEqual([ids.chased]);
  });

  it("keeps the overdue total when invoices move: paid in full, a new due day, dunning taken up", async () => {
    const auth = await accounts();
    const total = async () =>
      (await expectJson(await call("/invoices?overdue=true", { token: auth }), 200, expect.anything())).meta
        .total_entries;
    const before = await total();
    const extra = await invoiceOf(betaAuth, "10.00");
    expect(await total()).toBe(before);
    await setStored(extra.id, { due_on: addDays(today, -5) });
    expect(await total()).toBe(before + 1);
    await setStored(extra.id, { dunning_state: "active" });
    expect(await total()).toBe(before + 1);
    expect((await post(`/invoices/${extra.id}/pay`, betaAuth)).status).toBe(200);
    expect(await total()).toBe(before);
    expect(await total()).toBe((await stored()).filter(overdue(today)).length);
  });

  it("reads any customer's invoice by id exactly as its customer does; an unknown id is 404", async () => {
    const auth = await accounts();
    for (const id of [ids.chased!, ids.ended!]) {
      await expectJson(await call(`/invoices/${id}`, { token: auth }), 200, {
        data: await asOwnerSees(owners[id]!, id),
      });
    }
    await expectError(await call(`/invoices/${crypto.randomUUID()}`, { token: auth }), 404, { code: "not_found" });
  });
});

describe("GET /invoices for a customer's token: these filters, on its own invoices only", () => {
  it.each([
    ["overdue=true", (row: Stored) => overdue(today)(row)],
    ["dunning=held", (row: Stored) => row.state === "open" && row.dunning_state === "held"],
    ["overdue=true&dunning=active", (row: Stored) => overdue(today)(row) && row.dunning_state === "active"],
    [`customer=${alpha}`, () => true],
    [`customer=${beta}`, () => false],
    [`customer=${beta}&overdue=true`, () => false],
  ])("?%s", async (query, keep) => {
    const expected = (await stored()).filter((row) => row.customer_id === alpha && keep(row)).map((row) => row.id);
    const { rows, totals } = await walk(alphaAuth, `/invoices?${query}`);
    expect(rows.map((invoice) => invoice.id)).toStrictEqual(expected);
    expect(new Set(totals)).toStrictEqual(new Set([expected.length]));
  });

  it("a token with customer_id and payments:read is still the customer's: never another customer's invoice", async () => {
    const auth = await token({ customer_id: alpha, scope: "invoices:read payments:read" });
    const { rows } = await walk(auth, "/invoices");
    expect(rows.length).toBeGreaterThan(0);
    for (const invoice of rows) expect(owners[invoice.id], invoice.id).toBe(alphaAuth);
    expect((await walk(auth, `/invoices?customer=${beta}`)).rows).toStrictEqual([]);
    await expectError(await call(`/invoices/${ids.ended}`, { token: auth }), 404, { code: "not_found" });
    await expectError(await call(`/invoices/${ids.ended}`, { token: alphaAuth }), 404, { code: "not_found" });
  });
});

describe("GET /invoices: refused filters and tokens", () => {
  it.each([
    ["overdue=false", "overdue"],
    ["overdue=TRUE", "overdue"],
    ["overdue=", "overdue"],
    ["dunning=none", "dunning"],
    ["dunning=settled", "dunning"],
    ["dunning=Active", "dunning"],
    ["state=overdue", "state"],
    ["overdue=true&overdue=true", "overdue"],
    ["state=bogus&dunning=bogus", "state"],
    [`order_id=${crypto.randomUUID()}&overdue=true`, "order_id"],
    [`order_id=${crypto.randomUUID()}&dunning=held`, "order_id"],
  ])("?%s: 400 invalid_parameter on %s", async (query, parameter) => {
    for (const auth of [await accounts(), alphaAuth]) {
      await expectError(await call(`/invoices?${query}`, { token: auth }), 400, {
        code: "invalid_parameter",
        source: { parameter },
      });
    }
  });

  it("a cursor of one filter does not fit another, nor a customer's list", async () => {
    const auth = await accounts();
    const page = await expectJson(
      await call("/invoices?overdue=true&page_size=1", { token: auth }),
      200,
      expect.anything(),
    );
    const next = new URL(page.links.next).searchParams.get("cursor");
    expect(next).toBeTruthy();
    for (const [who, query] of [
      [auth, "dunning=active"],
      [auth, `overdue=true&customer=${alpha}`],
      [alphaAuth, "overdue=true"],
    ] as const) {
      await expectError(await call(`/invoices?${query}&page_size=1&page=2&cursor=${next}`, { token: who }), 400, {
        code: "invalid_parameter",
        source: { parameter: "cursor" },
      });
    }
  });

  it("a token without customer_id and without payments:read gets what part 2 says: 403", async () => {
    const challenge = 'Bearer realm="voucher-billing-api", error="insufficient_scope", scope="invoices:read"';
    for (const path of ["/invoices", `/invoices/${ids.chased}`]) {
      const reader = await token({ customer_id: undefined, scope: "invoices:read payments:write" });
      await expectError(await call(path, { token: reader }), 403, {
        code: "forbidden",
        source: { header: "Authorization" },
        detail: "The access token names no customer (customer_id).",
      });
      const response = await call(path, { token: await token({ customer_id: undefined, scope: "payments:write" }) });
      expect(response.headers.get("WWW-Authenticate")).toBe(challenge);
      await expectError(response, 403, { code: "forbidden", source: { header: "Authorization" } });
    }
  });

  it("payments:read lets a token without customer_id into the invoice reads only, not the writes", async () => {
    const auth = await accounts();
    const response = await call("/invoices", { token: auth, json: { order_id: crypto.randomUUID() } });
    await expectError(response, 403, { code: "forbidden", source: { header: "Authorization" } });
    await expectError(await post(`/invoices/${ids.chased}/pay`, auth), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
    await expectError(await call(`/invoices/${ids.chased}/lines`, { token: auth }), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
  });
});

describe("the accounts view's kept totals", () => {
  it("equal the rows they count, for every list, scope and filter the triggers keep", async () => {
    const counted = async (sql: string) => {
      const { results } = await env.DB.prepare(sql).all<{
        list: string;
        scope: string;
        filter: string;
        total: number;
      }>();
      return results
        .filter(({ total }) => total !== 0)
        .map((row) => JSON.stringify(row))
        .sort();
    };
    const kept = await counted(
      "SELECT list, scope, filter, total FROM list_counts WHERE list IN ('all_invoices', 'dunning_invoices', 'open_due')",
    );
    const fromRows = await counted(
      "SELECT 'all_invoices' AS list, '' AS scope, '' AS filter, count(*) AS total FROM invoices " +
        "UNION ALL SELECT 'all_invoices', '', state, count(*) FROM invoices GROUP BY state " +
        "UNION ALL SELECT 'dunning_invoices', coalesce(s.scope, customer_id), dunning_state, count(*) FROM invoices " +
        "JOIN (SELECT '' AS scope UNION ALL SELECT NULL) s " +
        "WHERE state = 'open' AND dunning_state <> 'none' GROUP BY coalesce(s.scope, customer_id), dunning_state " +
        "UNION ALL SELECT 'open_due', coalesce(s.scope, customer_id), due_on || '/' || dunning_state, count(*) FROM invoices " +
        "JOIN (SELECT '' AS scope UNION ALL SELECT NULL) s " +
        "WHERE state = 'open' AND coalesce(gross_amount, 0) > allocated_amount " +
        "GROUP BY coalesce(s.scope, customer_id), due_on, dunning_state",
    );
    expect(fromRows.length).toBeGreaterThan(3);
    expect(kept).toStrictEqual(fromRows);
  });
});
