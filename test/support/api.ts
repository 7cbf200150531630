import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { expect } from "vitest";
import { SCOPES } from "../interface-fields";
import worker from "./worker";
import { CardOrder } from "../../src/schemas/card-order";
import { Invoice } from "../../src/schemas/invoice";
import { queued, statementsQueued } from "./queue";
import { checkSuccess, fieldsOf } from "./shape";

export const BASE = "https://api.test";
export const JWT_SECRET = "test-secret"; // vitest.config.ts binds it
export const ALL_SCOPES = SCOPES.join(" ");
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const JSON_TYPE = "application/json; charset=utf-8";

export interface Claims {
  sub?: string;
  customer_id?: string;
  scope?: string;
  exp?: number;
  nbf?: number;
  iat?: number;
  [claim: string]: unknown;
}

let counter = 0;
/** A unique id for a test's principal or tenant, so tests never share rate limits or rows. */
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/** A valid HS256 token: all scopes, a fresh sub and customer unless given, 10 minutes to live. */
export async function token(claims: Claims = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return sign(
    { sub: unique("user"), customer_id: unique("customer"), scope: ALL_SCOPES, exp: now + 600, ...claims },
    JWT_SECRET,
    "HS256",
  );
}

/** Bindings that replace the test environment's for one call (another JWT setting, a faulty DB). */
export type Bindings = Partial<Cloudflare.Env>;

export interface CallOptions {
  method?: string;
  token?: string;
  /** Sent as a JSON body with Content-Type: application/json. */
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  env?: Bindings;
}

/** An entry point of the service (method syntax: each takes the bindings it declares). */
interface Entry {
  fetch(request: Request, env: Cloudflare.Env, ctx: ExecutionContext): Response | Promise<Response>;
}

/**
 * The one way tests call the Worker: the service's fetch (test/support/worker.ts: the API Worker, which
 * passes some requests on to the jobs Worker) with the test bindings, then every task it left with
 * ctx.waitUntil, then its success body held against its route's schema.
 *
 * It calls the default export directly rather than through `exports.default.fetch`: each call runs
 * with the test's bindings (the recording queue, a test's own variables or a faulty D1), which the
 * pool's entry point cannot take, and it waits for the Worker's waitUntil tasks. (The Proxy chain
 * of @cloudflare/vitest-pool-workers, which slowed `exports.default.fetch` with every call, is gone
 * in @cloudflare/vitest-plugin, BENCHMARKS.md "The test pool".)
 * `target` is another entry point of the same service (bench/wrapped-d1).
 */
export async function send(request: Request, bindings: Bindings = {}, target: Entry = worker): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await target.fetch(
    request,
    { ...env, EVENTS: queued.binding, STATEMENTS: statementsQueued.binding, ...bindings },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  await checkSuccess(request, response);
  return response;
}

/** A request as a client sends it: a bearer token, a JSON body, headers. */
export function call(path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body = options.body;
  if (options.json !== undefined) {
    headers["Content-Type"] ??= "application/json";
    body = JSON.stringify(options.json);
  }
  return send(
    new Request(BASE + path, { method: options.method ?? (body === undefined ? "GET" : "POST"), headers, body }),
    options.env,
  );
}

/** A POST without a body, as `auth`: an action such as `/card_orders/{id}/submit`. */
export const post = (path: string, auth: string, bindings?: Bindings): Promise<Response> =>
  call(path, { token: auth, method: "POST", env: bindings });

/** Field order matters (docs/api.md part 1): compare it wherever `expected` spells an object out. */
function expectKeyOrder(actual: any, expected: unknown, path = "$"): void {
  if (expected === null || typeof expected !== "object" || "asymmetricMatch" in expected) return;
  if (Array.isArray(expected)) {
    expected.forEach((item, i) => expectKeyOrder(actual?.[i], item, `${path}[${i}]`));
    return;
  }
  expect(Object.keys(actual ?? {}), `field order of ${path}`).toStrictEqual(Object.keys(expected));
  for (const [key, item] of Object.entries(expected)) expectKeyOrder(actual?.[key], item, `${path}.${key}`);
}

/** Asserts status, JSON content type, and the exact body: same fields, same order, same values. */
export async function expectJson<T = any>(response: Response, status: number, expected: unknown): Promise<T> {
  const text = await response.text();
  expect({ status: response.status, body: text }).toMatchObject({ status });
  expect(response.headers.get("Content-Type")).toBe(JSON_TYPE);
  const body = JSON.parse(text);
  expect(body).toStrictEqual(expected);
  expectKeyOrder(body, expected);
  return body as T;
}

/** A link of an earlier answer, followed as a client follows it: a 200 list page. */
export async function follow(link: string, token: string): Promise<any> {
  return expectJson(await call(link.slice(BASE.length), { token }), 200, expect.anything());
}

/** Asserts an error response: the envelope with exactly these errors. */
export function expectError(
  response: Response,
  status: number,
  ...errors: { code: string; source?: object; detail?: unknown }[]
) {
  return expectJson(response, status, {
    errors: errors.map(({ code, source = {}, detail = expect.stringMatching(/\S/) }) => ({ detail, code, source })),
  });
}

/**
 * The fields of each resource, in order: from the response schemas (held against docs/api.md part 1
 * by shapes.test.ts).
 */
export const CARD_ORDER_FIELDS = fieldsOf(CardOrder);
export const INVOICE_FIELDS = fieldsOf(Invoice);

export const newCardOrder = { voucher_category: "mixed", payment_method: "bank_transfer" };

/** A billing profile as a customer PUTs it (docs/api.md parts 13 and 14): every field, direct debit included. */
export const newBillingProfile = {
  legal_name: "Müller & Söhne Gastronomie GmbH",
  street: "Hauptstraße 5",
  postcode: "80331",
  city: "München",
  country_code: "DE",
  vat_id: "DE987654321",
  buyer_reference: "Kantine Nord",
  leitweg_id: "04011000-12345-03",
  email: "rechnung@mueller-soehne.example",
  direct_debit_iban: "DE89370400440532013000",
  direct_debit_bic: null,
  direct_debit_mandate_reference: "MANDATE-0001",
  direct_debit_mandate_signed_on: "2026-01-15",
  document_language: "de",
};

const profiled = new Set<string>();

/**
 * Gives `auth`'s customer the billing profile a submit needs, once per token. Written to D1
 * directly, like the other seeded rows of a test: through the API it would emit a
 * billing_profile.updated event into every test's event log and webhooks (test/billing-profile.test.ts
 * tests the endpoint itself). The body's field names are the table's columns.
 */
export async function withBillingProfile(auth: string): Promise<void> {
  if (profiled.has(auth)) return;
  const { customer_id } = JSON.parse(atob(auth.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as Claims;
  const columns = Object.keys(newBillingProfile);
  await env.DB.prepare(
    `INSERT OR IGNORE INTO billing_profiles (customer_id, ${columns.join(", ")}, updated_at) ` +
      `VALUES (${["?", ...columns.map(() => "?"), "?"].join(", ")})`,
  )
    .bind(customer_id, ...Object.values(newBillingProfile), new Date().toISOString())
    .run();
  profiled.add(auth);
}

/** The customer a token's `customer_id` claim names (read, not verified). */
export const customerOfToken = (auth: string): string =>
  (JSON.parse(atob(auth.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as Claims).customer_id as string;

/**
 * Stores `auth`'s customer's billing profile row in D1 directly, replacing any: newBillingProfile with
 * `fields` over it (column names, null for none). For a buyer abroad, another language, or a profile the
 * API would refuse (one stored before a rule existed, or changed behind an order's back). No event.
 */
export async function storeBillingProfile(
  auth: string,
  fields: { [Column in keyof typeof newBillingProfile]?: string | null } = {},
): Promise<void> {
  const row = { ...newBillingProfile, ...fields };
  const columns = Object.keys(row);
  await env.DB.prepare(
    `INSERT OR REPLACE INTO billing_profiles (customer_id, ${columns.join(", ")}, updated_at) ` +
      `VALUES (${["?", ...columns.map(() => "?"), "?"].join(", ")})`,
  )
    .bind(customerOfToken(auth), ...Object.values(row), new Date().toISOString())
    .run();
  profiled.add(auth);
}

/**
 * The calendar day of `at` in the business time zone, `YYYY-MM-DD` (docs/api.md part 14: invoices are
 * dated and numbered in BUSINESS_TIME_ZONE, which wrangler.toml sets to Europe/Berlin, not in UTC).
 */
export const businessDay = (at: Date | string = new Date(), zone = "Europe/Berlin"): string =>
  new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(
    new Date(at),
  );

/**
 * Creates a card order and returns it as the API showed it; its customer gets a billing profile
 * first (`profile: false`: not), as a customer who will submit it must have.
 */
export async function createCardOrder(
  auth: string,
  body: object = newCardOrder,
  { profile = true }: { profile?: boolean } = {},
): Promise<any> {
  if (profile) await withBillingProfile(auth);
  const response = await call("/card_orders", { token: auth, json: body });
  expect(response.status).toBe(201);
  return ((await response.json()) as any).data[0];
}

export const newEntry = { voucher_owner_id: "owner-1", card_holder_name: "Ada Lovelace", amount: "25.00" };

/** Adds an entry to a draft card order and returns it as the API showed it. */
export async function addEntry(auth: string, orderId: string, body: object = newEntry): Promise<any> {
  const response = await call(`/card_orders/${orderId}/entries`, { token: auth, json: body });
  expect(response.status).toBe(201);
  return ((await response.json()) as any).data[0];
}

/** The transitions that lead a new card order into each state. */
export const CARD_ORDER_PATHS = {
  draft: [],
  submitted: ["submit"],
  in_production: ["submit", "start_production"],
  delivered: ["submit", "start_production", "deliver"],
  cancelled: ["cancel"],
} as const;

/** Stores `count` entries of 1.00 for an order straight into D1 (through the count triggers). */
export async function seedEntries(orderId: string, count: number): Promise<void> {
  await env.DB.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?2)
    INSERT INTO card_order_entries (id, order_id, voucher_owner_id, card_holder_name, amount, created_at, updated_at)
    SELECT lower(hex(randomblob(4))) || '-0000-4000-8000-' || printf('%012d', i), ?1, 'seeded', 'Seeded', 100,
      '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM seq`,
  )
    .bind(orderId, count)
    .run();
}

/**
 * A card order of `auth`'s customer (`order` as its body) with one entry (or `entries`), led into
 * `state`; as the API last showed it.
 */
export async function orderIn(
  auth: string,
  state: keyof typeof CARD_ORDER_PATHS,
  { order: body = newCardOrder, entries = [newEntry] }: { order?: object; entries?: object[] } = {},
): Promise<any> {
  let order = await createCardOrder(auth, body);
  for (const entry of entries) await addEntry(auth, order.id, entry);
  if (entries.length > 0)
    order = (await ((await call(`/card_orders/${order.id}`, { token: auth })).json() as Promise<any>)).data;
  for (const action of CARD_ORDER_PATHS[state]) {
    const response = await call(`/card_orders/${order.id}/${action}`, { token: auth, method: "POST" });
    expect({ action, status: response.status }).toStrictEqual({ action, status: 200 });
    order = ((await response.json()) as any).data;
  }
  return order;
}

export async function createInvoice(auth: string, orderId: string, reference?: string): Promise<any> {
  const response = await call("/invoices", {
    token: auth,
    json: reference === undefined ? { order_id: orderId } : { order_id: orderId, reference },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as any).data[0];
}

/**
 * A link of a list as the API builds it: `pathAndQuery` exactly, and with `cursor` a signed cursor
 * after it (docs/api.md part 4: `prev`, `next` and `last` carry one; page 1 and `first` never do).
 */
export const listLink = (pathAndQuery: string, cursor = false) =>
  cursor
    ? expect.stringMatching(
        new RegExp(`^${(BASE + pathAndQuery).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}&cursor=[\\w-]+\\.[\\w-]+$`),
      )
    : BASE + pathAndQuery;

/** The single-page envelope a POST answers with. */
export const singlePage = (path: string, data: unknown[]) => ({
  meta: { total_pages: 1, current_page: 1, page_size: data.length, total_entries: data.length },
  data,
  links: { self: BASE + path, first: BASE + path, last: BASE + path, prev: null, next: null },
});
