// `npm run load [-- --duration 30] [--connections 8] [--port 8797] [--quick]`
//
// A bounded load run on loopback: starts the API under `wrangler dev` with a fresh local D1, lets
// several tenants work on it concurrently, then checks that no acknowledged write was lost or
// duplicated. Prints throughput, latency, statuses and the verdict; exits 1 on any loss, duplicate,
// 5xx, transport error or unexpected answer. RELIABILITY.md describes a run.
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { parseArgs } from "node:util";
import { sign } from "hono/jwt";
import { startWorker } from "./local-worker.mjs";

const TENANTS = 4;
const PRINCIPALS_PER_TENANT = 2;
// CONTRACT part 2: every scope, so that each principal can take every step of the mix.
const SCOPES = ["card_orders:read", "card_orders:write", "invoices:read", "invoices:write", "notification_tokens:write", "fulfilment"];
// The configured limit (wrangler.toml: 600 per 60 s per sub) would turn most of a run through 8
// tokens into 429s: the run is meant to measure the service, not the limiter.
const RAISED_RATE_LIMIT = 1_000_000;
const REQUEST_TIMEOUT_MS = 30_000;
// Writes go to the newest few resources of a tenant, so that its two principals meet on the same
// ones now and then: the races that must answer 409 instead of corrupting anything.
const HOT_WINDOW = 8;
const CARD_ORDER_STATES = ["draft", "submitted", "in_production", "delivered", "cancelled"];
const INVOICE_STATES = ["open", "paid", "cancelled"];
const NEXT_STEP = { draft: "submit", submitted: "start_production", in_production: "deliver" };
const NOTIFICATION_GROUPS = 6;

// ---------------------------------------------------------------------------------------------
// Small helpers

const pick = (items) => items[Math.floor(Math.random() * items.length)];
const chance = (p) => Math.random() < p;
const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function percentile(sorted, q) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
async function mapPool(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** One async function at a time per lock (a promise chain). */
function createLock() {
  let tail = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn);
    tail = run.catch(() => {});
    return run;
  };
}

function readOptions() {
  const { values } = parseArgs({
    options: {
      duration: { type: "string" },
      connections: { type: "string", default: "8" },
      port: { type: "string", default: "8797" }, // not wrangler's 8787, which `npm run dev` uses
      quick: { type: "boolean", default: false },
    },
  });
  const options = { duration: Number(values.duration ?? (values.quick ? 5 : 30)), connections: Number(values.connections), port: Number(values.port) };
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isInteger(value) || value <= 0) {
      console.error(`--${name} must be a positive integer\nusage: node scripts/load.mjs [--duration <s>] [--connections <n>] [--port <p>] [--quick]`);
      process.exit(2);
    }
  }
  return options;
}

/**
 * Fails when something listens on the port already: startWorker would take its answer for the
 * Worker being ready and the run would load someone else's server.
 */
async function assertPortFree(port) {
  const free = await new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
  if (!free) {
    console.error(`127.0.0.1:${port} is in use; choose another --port (the Worker's inspector takes the port + 1000)`);
    process.exit(2);
  }
}

/** The `{ limit, period }` of wrangler.toml's rate limiter; startWorker keeps the period. */
function configuredRateLimit() {
  const toml = readFileSync(new URL("../wrangler.toml", import.meta.url), "utf8");
  const [, limit, period] = toml.match(/simple = \{ limit = (\d+), period = (\d+) \}/);
  return { limit: Number(limit), period: Number(period) };
}

// ---------------------------------------------------------------------------------------------
// HTTP

function parseJson(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/**
 * Rejects when `signal` aborts. Node 20's fetch can leave `response.text()` pending forever when the
 * request is aborted after its headers arrived; racing against this keeps a stopped run from hanging.
 */
function abortion(signal) {
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
}

async function exchange(url, init) {
  const response = await fetch(url, init);
  return { response, text: await response.text() };
}

/** A `send(principal, method, path, { json, key })` that never throws: status 0 is a transport error. */
function createClient(baseUrl, stopSignal) {
  return async (principal, method, path, { json, key } = {}) => {
    const headers = { Authorization: `Bearer ${principal.token}` };
    if (json !== undefined) headers["Content-Type"] = "application/json";
    if (key) headers["Idempotency-Key"] = key;
    const signal = AbortSignal.any([stopSignal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
    const started = performance.now();
    try {
      const init = { method, headers, body: json === undefined ? undefined : JSON.stringify(json), signal };
      const { response, text } = await Promise.race([exchange(new URL(path, baseUrl), init), abortion(signal)]);
      const body = parseJson(text);
      const ms = performance.now() - started;
      return { status: response.status, code: body?.errors?.[0]?.code, body, text, replayed: response.headers.get("Idempotent-Replayed") === "true", ms };
    } catch (error) {
      return { status: 0, code: error.name, ms: performance.now() - started };
    }
  };
}

const statusLabel = ({ status, code }) => (status === 0 ? `transport error (${code})` : code ? `${status} ${code}` : String(status));

// ---------------------------------------------------------------------------------------------
// The world: tenants, principals and what the server acknowledged to them

async function createWorld(secret, send) {
  const exp = Math.floor(Date.now() / 1000) + 24 * 3600;
  const tenants = [];
  const principals = [];
  for (let t = 1; t <= TENANTS; t++) {
    const tenant = { id: `customer-${t}`, orders: new Map(), invoices: new Map(), orderIds: [], invoiceIds: [], invoiceOf: new Map() };
    for (const suffix of "ab".slice(0, PRINCIPALS_PER_TENANT)) {
      const sub = `user-${t}${suffix}`;
      const token = await sign({ sub, customer_id: tenant.id, scope: SCOPES.join(" "), exp }, secret, "HS256");
      principals.push({ sub, tenant, token, keyed: [] });
    }
    tenants.push(tenant);
  }
  // Each group has its own token values and device names; values move between the devices of all
  // owners within a group. One write at a time per group lets the client know the order in which
  // the writes landed, and so predict every owner's final devices exactly.
  const groups = Array.from({ length: NOTIFICATION_GROUPS }, (_, k) => ({
    values: [randomBytes(16).toString("hex"), randomBytes(16).toString("hex")],
    devices: [`phone-${k}`, `tablet-${k}`],
    slots: new Map(), // "sub device" -> value
    lock: createLock(),
  }));
  return {
    send,
    tenants,
    principals,
    groups,
    samples: [], // { op, status, code, ms } of every load request
    unexpected: new Map(), // "op: status" -> count
    duplicated: new Set(), // "kind id" of resources a retry with a used Idempotency-Key answered with
    counts: { replays: 0, reusedKeysRefused: 0, twins: 0, twinsRefused: 0, moves: 0, listFollows: 0 },
  };
}

/** A load request: sent, timed and counted under `op`. */
async function call(world, op, principal, method, path, options) {
  const result = await world.send(principal, method, path, options);
  world.samples.push({ op, status: result.status, code: result.code, ms: result.ms });
  return result;
}

/** Records an answer outside `allowed` (e.g. "201", "409 invalid_state"); true when allowed. */
function expectAnswer(world, op, result, ...allowed) {
  if (allowed.includes(String(result.status)) || allowed.includes(`${result.status} ${result.code}`)) return true;
  noteUnexpected(world, `${op}: ${statusLabel(result)}`);
  return false;
}

function noteUnexpected(world, label) {
  world.unexpected.set(label, (world.unexpected.get(label) ?? 0) + 1);
}

/** Keeps the newest version the server showed of a resource (updated_at advances on every change). */
function observe(map, resource) {
  const tracked = map.get(resource.id);
  if (tracked && resource.updated_at > tracked.latest.updated_at) tracked.latest = resource;
}

/** A random one of the newest resources that match, or undefined. */
function pickRecent(ids, map, matches) {
  const candidates = [];
  for (let i = ids.length - 1; i >= 0 && candidates.length < HOT_WINDOW && ids.length - i <= 10 * HOT_WINDOW; i--) {
    const tracked = map.get(ids[i]);
    if (matches(tracked)) candidates.push(tracked);
  }
  return candidates.length ? pick(candidates) : undefined;
}

// ---------------------------------------------------------------------------------------------
// The mix: each step is one client action of one principal

function cardOrderBody() {
  const body = { voucher_category: pick(["mixed", "meal", "gift"]), payment_method: pick(["bank_transfer", "direct_debit"]) };
  if (chance(0.7)) body.description = `Vouchers for ${pick(["Q1", "Q2", "the summer party", "Müller & Söhne"])}`;
  if (chance(0.5)) body.invoice_reference = `PO-${Math.floor(Math.random() * 1e6)}`;
  if (chance(0.5)) body.cost_center = pick(["CC-100", "CC-200", null]);
  return body;
}

// Per creating path: the kind of resource (as the checks name it) and an optional text field that a
// retry can change to make "another request with the same key".
const CREATES = { "/card_orders": { kind: "card_order", optionalText: "description" }, "/invoices": { kind: "invoice", optionalText: "reference" } };

/**
 * A keyed POST; now and then sent twice at once, as a client retrying a slow request would. Both
 * answers must then be the same resource, and only one may be new. Returns the first new answer.
 */
async function keyedPost(world, op, principal, path, json) {
  const key = randomUUID();
  const twin = chance(0.1);
  const results = await Promise.all((twin ? [1, 2] : [1]).map(() => call(world, op, principal, "POST", path, { json, key })));
  const created = results.filter((r) => r.status === 201);
  if (twin) world.counts.twins++;
  // Both twins find no stored response yet; the one that comes second may see the first's write
  // (e.g. the order already invoiced) before its own commit would have turned into a replay.
  if (twin && created.length === 1) world.counts.twinsRefused++;
  const fresh = created.filter((r) => !r.replayed);
  if (fresh.length > 1) noteUnexpected(world, `${op}: twin requests with one Idempotency-Key both created`);
  const first = fresh[0] ?? created[0];
  for (const other of created) {
    if (other !== first && other.body.data[0].id !== first.body.data[0].id) world.duplicated.add(`${CREATES[path].kind} ${other.body.data[0].id}`);
  }
  if (first) principal.keyed.push({ op, path, json, key, first });
  return { results, first };
}

async function createCardOrder(world, principal) {
  const op = "POST /card_orders";
  const { results, first } = await keyedPost(world, op, principal, "/card_orders", cardOrderBody());
  results.forEach((r) => expectAnswer(world, op, r, "201"));
  if (!first) return;
  const order = first.body.data[0];
  principal.tenant.orders.set(order.id, { created: order, latest: order });
  principal.tenant.orderIds.push(order.id);
}

async function createInvoice(world, principal) {
  const { tenant } = principal;
  const order = pickRecent(tenant.orderIds, tenant.orders, (o) => o.latest.state !== "cancelled" && o.latest.invoice === null && !tenant.invoiceOf.has(o.latest.id));
  if (!order) return createCardOrder(world, principal);
  const op = "POST /invoices";
  const json = chance(0.5) ? { order_id: order.latest.id, reference: `REF-${Math.floor(Math.random() * 1e6)}` } : { order_id: order.latest.id };
  const { results, first } = await keyedPost(world, op, principal, "/invoices", json);
  // The other principal of the tenant may have invoiced or cancelled the order meanwhile.
  results.forEach((r) => expectAnswer(world, op, r, "201", "409 conflict", "409 invalid_state"));
  if (!first) return refreshCardOrder(world, principal, order.latest.id);
  const invoice = first.body.data[0];
  tenant.invoices.set(invoice.id, { created: invoice, latest: invoice });
  tenant.invoiceIds.push(invoice.id);
  tenant.invoiceOf.set(order.latest.id, { id: invoice.id, type: "invoice", number: invoice.number });
}

/** Sends a keyed POST again: the same request must replay, another body with the key is refused. */
async function retryKeyedPost(world, principal) {
  const earlier = principal.keyed.length ? pick(principal.keyed.slice(-50)) : undefined;
  if (!earlier) return createCardOrder(world, principal);
  if (chance(0.2)) {
    const op = `${earlier.op} (key reused, other body)`;
    const json = { ...earlier.json, [CREATES[earlier.path].optionalText]: "changed by the retry" };
    const result = await call(world, op, principal, "POST", earlier.path, { json, key: earlier.key });
    if (expectAnswer(world, op, result, "422 idempotency_key_reused")) world.counts.reusedKeysRefused++;
    return;
  }
  const op = `${earlier.op} (replay)`;
  const result = await call(world, op, principal, "POST", earlier.path, { json: earlier.json, key: earlier.key });
  if (!expectAnswer(world, op, result, "201")) return;
  const firstId = earlier.first.body.data[0].id;
  const id = result.body.data[0].id;
  if (id !== firstId) world.duplicated.add(`${CREATES[earlier.path].kind} ${id}`);
  else if (!result.replayed || result.text !== earlier.first.text) noteUnexpected(world, `${op}: same id but not an exact replay`);
  else world.counts.replays++;
}

async function refreshCardOrder(world, principal, id) {
  const result = await call(world, "GET /card_orders/{id}", principal, "GET", `/card_orders/${id}`);
  if (expectAnswer(world, "GET /card_orders/{id}", result, "200")) observe(principal.tenant.orders, result.body.data);
}

async function refreshInvoice(world, principal, id) {
  const result = await call(world, "GET /invoices/{id}", principal, "GET", `/invoices/${id}`);
  if (expectAnswer(world, "GET /invoices/{id}", result, "200")) observe(principal.tenant.invoices, result.body.data);
}

async function transitionCardOrder(world, principal) {
  const { tenant } = principal;
  const order = pickRecent(tenant.orderIds, tenant.orders, (o) => o.latest.state in NEXT_STEP);
  if (!order) return createCardOrder(world, principal);
  const { id, state, is_cancellable } = order.latest;
  const action = is_cancellable && chance(0.15) ? "cancel" : NEXT_STEP[state];
  const op = `POST /card_orders/{id}/${action}`;
  const result = await call(world, op, principal, "POST", `/card_orders/${id}/${action}`);
  // A race with the tenant's other principal: the order moved on (invalid_state) or changed while
  // this request ran (conflict). Both are legitimate answers; the client then fetches it again.
  expectAnswer(world, op, result, "200", "409 invalid_state", "409 conflict");
  if (result.status === 200) observe(tenant.orders, result.body.data);
  else await refreshCardOrder(world, principal, id);
}

async function transitionInvoice(world, principal) {
  const { tenant } = principal;
  const invoice = pickRecent(tenant.invoiceIds, tenant.invoices, (i) => i.latest.state === "open");
  if (!invoice) return createInvoice(world, principal);
  const action = chance(0.7) ? "pay" : "cancel";
  const op = `POST /invoices/{id}/${action}`;
  const result = await call(world, op, principal, "POST", `/invoices/${invoice.latest.id}/${action}`);
  expectAnswer(world, op, result, "200", "409 invalid_state", "409 conflict");
  if (result.status === 200) observe(tenant.invoices, result.body.data);
  else await refreshInvoice(world, principal, invoice.latest.id);
}

async function getById(world, principal) {
  const { tenant } = principal;
  if (chance(0.5) && tenant.invoiceIds.length) return refreshInvoice(world, principal, pick(tenant.invoiceIds));
  if (tenant.orderIds.length) return refreshCardOrder(world, principal, pick(tenant.orderIds));
  return createCardOrder(world, principal);
}

/** A page is consistent in itself: its meta, its size and the filter it was asked for. */
function pageIsConsistent(body, { page, pageSize, state }) {
  const { meta, data, links } = body;
  return (
    meta.current_page === page &&
    meta.page_size === pageSize &&
    meta.total_pages === Math.max(1, Math.ceil(meta.total_entries / pageSize)) &&
    data.length <= pageSize &&
    (page < meta.total_pages ? data.length === pageSize && links.next !== null : links.next === null) &&
    (state === undefined || data.every((item) => item.state === state))
  );
}

/** A list with a state filter now and then, at a random page, sometimes followed to its next page. */
async function listPage(world, principal, path, states, known, map) {
  const op = `GET ${path}`;
  const state = chance(0.4) ? pick(states) : undefined;
  const pageSize = pick([10, 25, 100]);
  const page = 1 + Math.floor(Math.random() * (Math.ceil(known / pageSize) + 1));
  const query = new URLSearchParams({ page: String(page), page_size: String(pageSize), ...(state ? { state } : {}) });
  let result = await call(world, op, principal, "GET", `${path}?${query}`);
  for (let current = page; expectAnswer(world, op, result, "200"); current++) {
    if (!pageIsConsistent(result.body, { page: current, pageSize, state })) noteUnexpected(world, `${op}: inconsistent page`);
    result.body.data.forEach((item) => observe(map, item));
    if (!result.body.links.next || !chance(0.3)) break;
    world.counts.listFollows++;
    result = await call(world, op, principal, "GET", result.body.links.next);
  }
}

const listCardOrders = (world, principal) => listPage(world, principal, "/card_orders", CARD_ORDER_STATES, principal.tenant.orderIds.length, principal.tenant.orders);
const listInvoices = (world, principal) => listPage(world, principal, "/invoices", INVOICE_STATES, principal.tenant.invoiceIds.length, principal.tenant.invoices);

async function putNotificationToken(world, principal) {
  const group = pick(world.groups);
  const device = pick(group.devices);
  const value = pick(group.values);
  await group.lock(async () => {
    const op = "PUT /voucher_owners/me/notification_tokens";
    const result = await call(world, op, principal, "PUT", "/voucher_owners/me/notification_tokens", { json: { value, device_identifier: device } });
    if (!expectAnswer(world, op, result, "204")) return;
    // The value leaves whichever device held it before; it may have been another owner's.
    for (const [slot, held] of group.slots) {
      if (held !== value || slot === `${principal.sub} ${device}`) continue;
      group.slots.delete(slot);
      if (!slot.startsWith(`${principal.sub} `)) world.counts.moves++;
    }
    group.slots.set(`${principal.sub} ${device}`, value);
  });
}

async function deleteNotificationToken(world, principal) {
  const group = pick(world.groups);
  const device = pick(group.devices);
  await group.lock(async () => {
    const op = "DELETE /voucher_owners/me/notification_tokens/{device}";
    const result = await call(world, op, principal, "DELETE", `/voucher_owners/me/notification_tokens/${device}`);
    if (expectAnswer(world, op, result, "204")) group.slots.delete(`${principal.sub} ${device}`);
  });
}

async function listNotificationTokens(world, principal) {
  const op = "GET /voucher_owners/me/notification_tokens";
  expectAnswer(world, op, await call(world, op, principal, "GET", "/voucher_owners/me/notification_tokens?page_size=100"), "200");
}

// Relative weights: mostly reads and card-order work, as a busy back office would do.
const MIX = [
  [16, createCardOrder],
  [6, retryKeyedPost],
  [8, createInvoice],
  [14, transitionCardOrder],
  [6, transitionInvoice],
  [14, getById],
  [10, listCardOrders],
  [6, listInvoices],
  [8, putNotificationToken],
  [4, listNotificationTokens],
  [3, deleteNotificationToken],
];
const MIX_TOTAL = MIX.reduce((sum, [weight]) => sum + weight, 0);

function pickStep() {
  let roll = Math.random() * MIX_TOTAL;
  for (const [weight, step] of MIX) if ((roll -= weight) < 0) return step;
  return MIX[0][1];
}

/** `connections` loops, each taking random steps of random principals until the deadline. */
async function runLoad(world, { duration, connections }, stopSignal) {
  const started = performance.now();
  const deadline = started + duration * 1000;
  const loop = async () => {
    while (performance.now() < deadline && !stopSignal.aborted) await pickStep()(world, pick(world.principals));
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------
// Verification, after the load: what the server holds against what it acknowledged

/** Every entry of a tenant's list, page by page, and the totals the list and its filters report. */
async function readList(world, principal, path, states) {
  const entries = [];
  let total;
  for (let page = 1; ; page++) {
    const result = await world.send(principal, "GET", `${path}?page=${page}&page_size=100`);
    if (result.status !== 200) throw new Error(`GET ${path} answered ${statusLabel(result)} during verification`);
    total ??= result.body.meta.total_entries;
    entries.push(...result.body.data);
    if (!result.body.links.next) break;
  }
  const totalsByState = {};
  for (const state of states) {
    const result = await world.send(principal, "GET", `${path}?state=${state}&page_size=1`);
    if (result.status !== 200) throw new Error(`GET ${path}?state=${state} answered ${statusLabel(result)} during verification`);
    totalsByState[state] = result.body.meta.total_entries;
  }
  return { entries, total, totalsByState };
}

/** The current version of every acknowledged resource; null where the server answers 404. */
async function readBack(world, connections) {
  const targets = world.tenants.flatMap((tenant) => [
    ...tenant.orderIds.map((id) => ({ tenant, path: `/card_orders/${id}`, id })),
    ...tenant.invoiceIds.map((id) => ({ tenant, path: `/invoices/${id}`, id })),
  ]);
  const found = new Map();
  await mapPool(targets, connections, async ({ tenant, path, id }) => {
    const principal = world.principals.find((p) => p.tenant === tenant);
    const result = await world.send(principal, "GET", path);
    if (result.status !== 200 && result.status !== 404) throw new Error(`GET ${path} answered ${statusLabel(result)} during verification`);
    found.set(id, result.status === 200 ? result.body.data : null);
  });
  return { found, requests: targets.length };
}

// Fields no transition changes: the current version must still show what the 201 showed.
const FIXED_FIELDS = {
  card_order: ["id", "created_at", "customer", "description", "invoice_reference", "cost_center", "payment_method", "production_invoice", "shipping_invoice", "voucher_category", "entries_count"],
  invoice: ["id", "type", "number", "created_at", "booked_on", "service_period_start", "service_period_end", "creditor", "due_on", "gross_amount", "net_amount", "recipient", "reference", "cost_center", "payment_method"],
};
// Fields another resource changes without a response about this one: checked on their own.
const LINKED_FIELDS = { card_order: ["updated_at", "invoice"], invoice: ["orders"] };

/** Why a stored resource differs from what was acknowledged about it, or undefined. */
function difference(kind, tracked, current) {
  if (!current) return "not found";
  const changed = FIXED_FIELDS[kind].filter((field) => !sameJson(current[field], tracked.created[field]));
  const moved = Object.keys(tracked.latest).filter((field) => !LINKED_FIELDS[kind].includes(field) && !sameJson(current[field], tracked.latest[field]));
  if (kind === "invoice" && current.orders[0]?.id !== tracked.created.orders[0].id) changed.push("orders[0].id");
  if (current.updated_at < tracked.latest.updated_at) moved.push("updated_at went back");
  const fields = [...new Set([...changed, ...moved])];
  return fields.length ? `differs in ${fields.join(", ")}` : undefined;
}

/** A check's findings: lost and duplicated things, by key, so that two checks never count one twice. */
function createFindings() {
  const lost = new Map();
  const duplicated = new Map();
  return { lost, duplicated, lose: (key, why) => lost.set(key, why), duplicate: (key, why) => duplicated.set(key, why) };
}

function checkRetrievable(world, found, findings) {
  let checked = 0;
  for (const tenant of world.tenants) {
    for (const [kind, map] of [["card_order", tenant.orders], ["invoice", tenant.invoices]]) {
      for (const [id, tracked] of map) {
        checked++;
        const why = difference(kind, tracked, found.get(id));
        if (why) findings.lose(`${kind} ${id}`, why);
      }
    }
  }
  return `${checked} acknowledged resources read back by id with the fields they were acknowledged with`;
}

/** The list holds exactly the acknowledged resources, once each, and its counts agree with it. */
function compareList(findings, tenant, kind, map, list) {
  const seen = new Set();
  for (const { id } of list.entries) {
    if (seen.has(id) || !map.has(id)) findings.duplicate(`${kind} ${id}`, seen.has(id) ? "listed twice" : "listed but never acknowledged");
    seen.add(id);
  }
  for (const id of map.keys()) if (!seen.has(id)) findings.lose(`${kind} ${id}`, `missing from ${tenant.id}'s list`);
  const countGap = (reported, actual, what) => {
    for (let i = 0; i < Math.abs(reported - actual); i++) {
      const key = `${tenant.id} ${what} #${i}`;
      if (reported > actual) findings.duplicate(key, `total_entries ${reported}, ${actual} listed`);
      else findings.lose(key, `total_entries ${reported}, ${actual} listed`);
    }
  };
  countGap(list.total, list.entries.length, `${kind} total`);
  for (const [state, reported] of Object.entries(list.totalsByState)) {
    countGap(reported, list.entries.filter((entry) => entry.state === state).length, `${kind} ${state} total`);
  }
}

function checkLists(world, lists, findings) {
  const totals = world.tenants.map((tenant, i) => {
    compareList(findings, tenant, "card_order", tenant.orders, lists[i].orders);
    compareList(findings, tenant, "invoice", tenant.invoices, lists[i].invoices);
    return `${tenant.id} ${lists[i].orders.total} + ${lists[i].invoices.total}`;
  });
  return `per tenant, total_entries (also per state) = distinct card orders + invoices created, each listed once: ${totals.join(", ")}`;
}

function checkReplays(world, findings) {
  for (const key of world.duplicated) findings.duplicate(key, "answered to a retry with a used Idempotency-Key");
  const { replays, reusedKeysRefused, twins, twinsRefused } = world.counts;
  return `idempotent retries: ${replays} replays with the first id and Idempotent-Replayed: true, ${reusedKeysRefused} reused keys refused, ${twins} concurrent twins (${twinsRefused} answered 409 beside a 201); no second resource`;
}

/** Numbers of one series are exactly PREFIX-YYYY-000001 .. -n within each year, each once. */
function checkSeries(findings, prefix, numbers) {
  const byYear = new Map();
  for (const number of numbers) {
    const match = number.match(new RegExp(`^${prefix}-(\\d{4})-(\\d{6,})$`));
    const year = match?.[1] ?? "malformed";
    if (!byYear.has(year)) byYear.set(year, []);
    byYear.get(year).push(match ? Number(match[2]) : NaN);
  }
  const ranges = [];
  for (const [year, sequence] of byYear) {
    const seen = new Set();
    for (const n of sequence) {
      if (seen.has(n)) findings.duplicate(`${prefix} ${year} ${n}`, "number given twice");
      seen.add(n);
    }
    for (let n = 1; n <= sequence.length; n++) if (!seen.has(n)) findings.lose(`${prefix} ${year} ${n}`, "gap in the numbers");
    ranges.push(`${prefix}-${year}-000001..${String(sequence.length).padStart(6, "0")}`);
  }
  return ranges.length ? ranges.join(", ") : `no ${prefix} numbers`;
}

function checkNumbers(lists, findings) {
  const invoices = lists.flatMap((list) => list.invoices.entries);
  const cancelled = invoices.filter((invoice) => invoice.state === "cancelled");
  for (const invoice of invoices) {
    if ((invoice.state === "cancelled") !== (invoice.cancellation_number !== "")) findings.lose(`invoice ${invoice.id}`, "cancellation_number does not match its state");
  }
  const inv = checkSeries(findings, "INV", invoices.map((invoice) => invoice.number));
  const cn = checkSeries(findings, "CN", cancelled.map((invoice) => invoice.cancellation_number));
  return `numbers gapless and unique: ${inv}; cancellations ${cn}`;
}

function checkInvoiceLinks(world, found, findings) {
  let linked = 0;
  for (const tenant of world.tenants) {
    for (const [orderId, link] of tenant.invoiceOf) {
      linked++;
      if (!sameJson(found.get(orderId)?.invoice, link)) findings.lose(`card_order ${orderId} invoice`, `shows ${JSON.stringify(found.get(orderId)?.invoice)} instead of ${link.number}`);
    }
  }
  return `${linked} invoiced card orders show their invoice`;
}

async function checkNotificationDevices(world, findings) {
  for (const principal of world.principals) {
    const result = await world.send(principal, "GET", "/voucher_owners/me/notification_tokens?page_size=100");
    if (result.status !== 200) throw new Error(`GET notification tokens answered ${statusLabel(result)} during verification`);
    const listed = result.body.data.map((device) => device.device_identifier);
    const expected = world.groups.flatMap((group) => group.devices.filter((device) => group.slots.has(`${principal.sub} ${device}`)));
    listed.forEach((device, i) => {
      if (!expected.includes(device) || listed.indexOf(device) !== i) findings.duplicate(`${principal.sub} device ${device}`, "listed but not registered, or twice");
    });
    for (const device of expected) if (!listed.includes(device)) findings.lose(`${principal.sub} device ${device}`, "registered but not listed");
  }
  return `notification devices of ${world.principals.length} owners as registered (${world.counts.moves} token values moved to another owner)`;
}

/** Runs every check; prints one line per check and the findings; returns the counts. */
async function verify(world, connections) {
  const { found, requests } = await readBack(world, connections);
  const lists = await mapPool(world.tenants, connections, async (tenant) => {
    const principal = world.principals.find((p) => p.tenant === tenant);
    return { orders: await readList(world, principal, "/card_orders", CARD_ORDER_STATES), invoices: await readList(world, principal, "/invoices", INVOICE_STATES) };
  });
  console.log(`\nverification (${requests} reads by id and the full lists, after the load; not counted above)`);
  const checks = [
    (f) => checkRetrievable(world, found, f),
    (f) => checkLists(world, lists, f),
    (f) => checkReplays(world, f),
    (f) => checkNumbers(lists, f),
    (f) => checkInvoiceLinks(world, found, f),
    (f) => checkNotificationDevices(world, f),
  ];
  const all = createFindings();
  for (const check of checks) {
    const findings = createFindings();
    const summary = await check(findings);
    const failed = findings.lost.size + findings.duplicated.size > 0;
    console.log(`  ${failed ? "FAIL" : "ok  "} ${summary}`);
    for (const [key, why] of [...findings.lost, ...findings.duplicated].slice(0, 5)) console.log(`         ${key}: ${why}`);
    findings.lost.forEach((why, key) => all.lose(key, why));
    findings.duplicated.forEach((why, key) => all.duplicate(key, why));
  }
  return { lost: all.lost.size, duplicated: all.duplicated.size };
}

// ---------------------------------------------------------------------------------------------
// Report

function report(world, seconds) {
  const latencies = world.samples.map((s) => s.ms).sort((a, b) => a - b);
  const byStatus = new Map();
  const byOp = new Map();
  for (const sample of world.samples) {
    byStatus.set(statusLabel(sample), (byStatus.get(statusLabel(sample)) ?? 0) + 1);
    if (!byOp.has(sample.op)) byOp.set(sample.op, []);
    byOp.get(sample.op).push(sample.ms);
  }
  const ms = (value) => value.toFixed(1);
  console.log(`\nduration        ${seconds.toFixed(1)} s`);
  console.log(`requests        ${world.samples.length}`);
  console.log(`requests/s      ${(world.samples.length / seconds).toFixed(1)}`);
  console.log(`latency p50     ${ms(percentile(latencies, 0.5))} ms`);
  console.log(`latency p99     ${ms(percentile(latencies, 0.99))} ms`);
  console.log(`by status       ${[...byStatus].sort().map(([label, n]) => `${label}: ${n}`).join(", ")}`);
  console.log(`by operation    count   p50 ms   p99 ms`);
  for (const [op, values] of [...byOp].sort((a, b) => b[1].length - a[1].length)) {
    values.sort((a, b) => a - b);
    console.log(`  ${op.padEnd(58)} ${String(values.length).padStart(6)} ${ms(percentile(values, 0.5)).padStart(8)} ${ms(percentile(values, 0.99)).padStart(8)}`);
  }
  console.log(`lists followed to their next page: ${world.counts.listFollows}`);
  if (world.unexpected.size) {
    console.log("unexpected answers:");
    for (const [label, n] of world.unexpected) console.log(`  ${label} × ${n}`);
  }
  return {
    serverErrors: world.samples.filter((s) => s.status >= 500).length,
    transportErrors: world.samples.filter((s) => s.status === 0).length,
  };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const options = readOptions();
  // Ctrl-C: stop the load and the Worker cleanly. The Worker runs in its own process group (so that
  // stop() can end wrangler and workerd together), which means the terminal's SIGINT never reaches
  // it: without this it would outlive the script.
  const stopping = new AbortController();
  const interrupt = () => {
    console.error("\ninterrupted: stopping the load and the Worker");
    stopping.abort();
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);

  // A secret of this run only: the Worker's config is generated outside the project, away from .dev.vars.
  const secret = randomBytes(32).toString("hex");
  await assertPortFree(options.port);
  await assertPortFree(options.port + 1000); // startWorker's inspector port
  console.log(`starting wrangler dev on 127.0.0.1:${options.port} with a fresh local D1 ...`);
  const worker = await startWorker({ name: "load", port: options.port, rateLimit: RAISED_RATE_LIMIT, vars: { JWT_SECRET: secret } });
  try {
    if (stopping.signal.aborted) return 130;
    const world = await createWorld(secret, createClient(worker.url, stopping.signal));
    console.log(`load: ${options.duration} s, ${options.connections} connections, ${TENANTS} tenants × ${PRINCIPALS_PER_TENANT} principals, all scopes, on ${worker.url}`);
    const { limit, period } = configuredRateLimit();
    console.log(`rate limit raised from ${limit} to ${RAISED_RATE_LIMIT} requests/${period} s per sub for this run, so that it measures the service, not the limiter`);
    const seconds = await runLoad(world, options, stopping.signal);
    if (stopping.signal.aborted) return 130;
    const { serverErrors, transportErrors } = report(world, seconds);
    const { lost, duplicated } = await verify(world, options.connections);
    const failures = [serverErrors && `${serverErrors} 5xx`, transportErrors && `${transportErrors} transport errors`, world.unexpected.size && "unexpected answers"].filter(Boolean);
    if (failures.length) console.log(`\nFAILED: ${failures.join(", ")}`);
    console.log(`lost=${lost} duplicated=${duplicated}`);
    return lost || duplicated || failures.length ? 1 : 0;
  } finally {
    await worker.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
