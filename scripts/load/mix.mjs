// The world of a load run (tenants, principals, what the server acknowledged) and the mix of client
// actions; every POST carries an Idempotency-Key, so that a retry under --faults never writes twice.
import { randomBytes, randomUUID } from "node:crypto";
import { sign } from "hono/jwt";
import { randomAmount } from "./amounts.mjs";
import { statusLabel } from "./http.mjs";
import { allocate, collect, resendDelivery, runDunning, uploadStatement } from "./money.mjs";
import { CARD_ORDER_STATES, INVOICE_STATES } from "./service.mjs";
import { chance, createLock, pick } from "./util.mjs";

export const TENANTS = 4;
export const PRINCIPALS_PER_TENANT = 2;
// docs/api.md part 2: every scope, so that each principal can take every step of the mix.
const SCOPES = [
  "card_orders:read",
  "card_orders:write",
  "invoices:read",
  "invoices:write",
  "notification_tokens:write",
  "fulfilment",
  "webhooks:write",
  "events:read",
];
// Writes go to a tenant's newest few resources, so that its two principals race (409, never corruption).
const HOT_WINDOW = 8;
const INVOICEABLE = ["submitted", "in_production", "delivered"];
const NOTIFICATION_GROUPS = 6;
// Several cards per order (the API allows 500), for several voucher owners, names as cards print them.
const MAX_ENTRIES_PER_ORDER = 6;
const VOUCHER_OWNERS = Array.from({ length: 10 }, (_, i) => `owner-${i + 1}`);
const CARD_HOLDERS = [
  "Ada Lovelace",
  "Grace Hopper",
  "Zoë Müller-Lüdenscheid",
  "José Núñez",
  "Łukasz Żółkiewski",
  "Søren Kierkegaard",
  "Aiko Tanaka",
  "Chiamaka Okafor",
  "Siobhán O'Brien",
];
// docs/api.md part 11: the event each acknowledged transition emits.
const ORDER_EVENTS = {
  submit: "card_order.submitted",
  start_production: "card_order.production_started",
  deliver: "card_order.delivered",
  cancel: "card_order.cancelled",
};
const INVOICE_EVENTS = { pay: "invoice.paid", cancel: "invoice.cancelled" };

export async function createWorld(secret, send) {
  const exp = Math.floor(Date.now() / 1000) + 24 * 3600;
  const tenants = [];
  const principals = [];
  for (let t = 1; t <= TENANTS; t++) {
    const tenant = {
      id: `customer-${t}`,
      orders: new Map(), // id -> { created, latest, entries: Map(id -> { created, deleting }), deleted: Set, target }
      invoices: new Map(), // id -> { created, latest, kind, orderId }
      orderIds: [],
      invoiceIds: [],
      invoiceOf: new Map(), // card order id -> its newest voucher invoice's link
      acknowledged: new Map(), // "event type resource id" -> the resource as the change's answer showed it
    };
    for (const suffix of "ab".slice(0, PRINCIPALS_PER_TENANT)) {
      const sub = `user-${t}${suffix}`;
      const token = await sign({ sub, customer_id: tenant.id, scope: SCOPES.join(" "), exp }, secret, "HS256");
      principals.push({ sub, tenant, token, keyed: [] });
    }
    tenants.push(tenant);
  }
  // One write at a time per group (its own tokens and devices) lets the client predict every owner's final devices.
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
    unexpected: new Map(), // "op: status" -> count
    duplicated: new Set(), // "kind id" of resources a retry with a used Idempotency-Key answered with
    counts: {
      replays: 0,
      reusedKeysRefused: 0,
      twins: 0,
      twinsRefused: 0,
      moves: 0,
      listFollows: 0,
      entriesAdded: 0,
      entriesDeleted: 0,
      deletesThatHadRun: 0,
      reinvoiced: 0,
    },
  };
}

/** Each tenant's billing profile (account and mandate: both payment methods), once before the load. */
export async function writeBillingProfiles(world) {
  for (const tenant of world.tenants) {
    const principal = world.principals.find((p) => p.tenant === tenant);
    const json = {
      legal_name: `Load ${tenant.id} GmbH`,
      street: "Hauptstraße 1",
      postcode: "10115",
      city: "Berlin",
      country_code: "DE",
      email: `rechnung@${tenant.id}.example`,
      direct_debit_iban: tenant.iban, // its own: a transfer from it names the tenant (part 15 rule 3)
      direct_debit_mandate_reference: `LOAD-${tenant.id}`,
      direct_debit_mandate_signed_on: "2026-01-15",
    };
    const result = await world.send(principal, "PUT", "/customers/me/billing_profile", { json });
    if (result.status !== 200)
      throw new Error(`PUT /customers/me/billing_profile answered ${result.status}: ${result.text}`);
  }
}

/** A load request: sent (retried after a 503 under --faults), timed and counted under `op`. */
const call = (world, op, principal, method, path, options) => world.send(principal, method, path, options, op);

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

function cardOrderBody() {
  const body = {
    voucher_category: pick(["mixed", "meal", "gift"]),
    payment_method: pick(["bank_transfer", "direct_debit"]),
  };
  if (chance(0.7)) body.description = `Vouchers for ${pick(["Q1", "Q2", "the summer party", "Müller & Söhne"])}`;
  if (chance(0.5)) body.invoice_reference = `PO-${Math.floor(Math.random() * 1e6)}`;
  if (chance(0.5)) body.cost_center = pick(["CC-100", "CC-200", null]);
  return body;
}

// What each keyed create makes (as the checks name it), and a field a retry changes for "another request".
const CREATES = {
  cardOrder: { kind: "card_order", optionalText: "description" },
  invoice: { kind: "invoice", optionalText: "reference" },
  entry: { kind: "entry", optionalText: "card_holder_name" },
};

/** A keyed create, now and then sent twice at once: one answer, one new resource; returns the first new answer. */
async function keyedPost(world, op, principal, path, json, create) {
  const key = randomUUID();
  const twin = chance(0.1);
  const results = await Promise.all(
    (twin ? [1, 2] : [1]).map(() => call(world, op, principal, "POST", path, { json, key })),
  );
  const created = results.filter((r) => r.status === 201);
  if (twin) world.counts.twins++;
  // Both twins find no stored response yet; the one that comes second may see the first's write
  // (e.g. the order already invoiced) before its own commit would have turned into a replay.
  if (twin && created.length === 1) world.counts.twinsRefused++;
  // Under --faults a single request may end in a replay too: its first attempt committed, then lost its answer.
  const fresh = created.filter((r) => !r.replayed);
  if (fresh.length > 1) noteUnexpected(world, `${op}: twin requests with one Idempotency-Key both created`);
  const first = fresh[0] ?? created[0];
  for (const other of created) {
    if (other !== first && other.body.data[0].id !== first.body.data[0].id)
      world.duplicated.add(`${create.kind} ${other.body.data[0].id}`);
  }
  if (first) principal.keyed.push({ op, path, json, key, first, create });
  return { results, first };
}

/** A keyed POST of a transition: the key makes a retry after a lost answer a replay, not a second try. */
const transitionPost = (world, op, principal, path) => call(world, op, principal, "POST", path, { key: randomUUID() });

async function createCardOrder(world, principal) {
  const op = "POST /card_orders";
  const { results, first } = await keyedPost(world, op, principal, "/card_orders", cardOrderBody(), CREATES.cardOrder);
  results.forEach((r) => expectAnswer(world, op, r, "201"));
  if (!first) return;
  const order = first.body.data[0];
  const target = 1 + Math.floor(Math.random() * MAX_ENTRIES_PER_ORDER);
  principal.tenant.orders.set(order.id, {
    created: order,
    latest: order,
    entries: new Map(),
    deleted: new Set(),
    target,
  });
  principal.tenant.orderIds.push(order.id);
}

/** The entries of `order` that no request is deleting. */
const liveEntries = (order) => [...order.entries.values()].filter((entry) => !entry.deleting);

async function addEntry(world, principal, order) {
  const op = "POST /card_orders/{id}/entries";
  const json = { voucher_owner_id: pick(VOUCHER_OWNERS), card_holder_name: pick(CARD_HOLDERS), amount: randomAmount() };
  const { results, first } = await keyedPost(
    world,
    op,
    principal,
    `/card_orders/${order.latest.id}/entries`,
    json,
    CREATES.entry,
  );
  // The tenant's other principal may have submitted or cancelled the order meanwhile.
  results.forEach((r) => expectAnswer(world, op, r, "201", "409 invalid_state"));
  if (!first) return refreshCardOrder(world, principal, order.latest.id);
  const entry = first.body.data[0];
  order.entries.set(entry.id, { created: entry, deleting: false });
  world.counts.entriesAdded++;
}

/** Deletes one of several entries (never the last: the order stays submittable). */
async function deleteEntry(world, principal, order) {
  const entry = pick(liveEntries(order));
  // Marked first, so that the other principal never deletes it too: a 404 then means an earlier attempt ran.
  entry.deleting = true;
  const op = "DELETE /card_orders/{id}/entries/{entry_id}";
  const result = await call(
    world,
    op,
    principal,
    "DELETE",
    `/card_orders/${order.latest.id}/entries/${entry.created.id}`,
  );
  const ran = result.attempts > 1 && result.status === 404;
  expectAnswer(world, op, result, "204", "409 invalid_state", ...(ran ? ["404 not_found"] : []));
  if (result.status === 204 || ran) {
    order.entries.delete(entry.created.id);
    order.deleted.add(entry.created.id);
    world.counts.entriesDeleted++;
    if (ran) world.counts.deletesThatHadRun++;
  } else {
    entry.deleting = false;
    await refreshCardOrder(world, principal, order.latest.id);
  }
}

/** A draft gets its cards, loses one now and then (and gets another), and is submitted (or, rarely, cancelled). */
async function workOnDraft(world, principal) {
  const { tenant } = principal;
  const order = pickRecent(tenant.orderIds, tenant.orders, (o) => o.latest.state === "draft");
  if (!order) return createCardOrder(world, principal);
  const live = liveEntries(order).length;
  if (live > 1 && chance(0.2)) return deleteEntry(world, principal, order);
  if (live < order.target) return addEntry(world, principal, order);
  return transitionCardOrder(world, principal, order, chance(0.05) ? "cancel" : "submit");
}

/** Production and delivery of submitted orders; a submitted one is cancelled now and then. */
async function advanceCardOrder(world, principal) {
  const { tenant } = principal;
  const order = pickRecent(
    tenant.orderIds,
    tenant.orders,
    (o) => o.latest.state === "submitted" || o.latest.state === "in_production",
  );
  if (!order) return workOnDraft(world, principal);
  const action = order.latest.state === "in_production" ? "deliver" : chance(0.15) ? "cancel" : "start_production";
  return transitionCardOrder(world, principal, order, action);
}

async function transitionCardOrder(world, principal, order, action) {
  const { id } = order.latest;
  const op = `POST /card_orders/{id}/${action}`;
  const result = await transitionPost(world, op, principal, `/card_orders/${id}/${action}`);
  // A race with the other principal (invalid_state, conflict; cancel of a paid invoice): refetch the order.
  expectAnswer(world, op, result, "200", "409 invalid_state", "409 conflict");
  if (result.status !== 200) return refreshCardOrder(world, principal, id);
  const data = result.body.data;
  const { tenant } = principal;
  observe(tenant.orders, data);
  tenant.acknowledged.set(`${ORDER_EVENTS[action]} ${id}`, data);
  // Production and delivery each issue an invoice, shown as a link only: the client reads it. A
  // cancel withdraws the order's open voucher invoice with it: the client reads that one again.
  if (action === "start_production") await learnInvoice(world, principal, data.production_invoice, "production", id);
  if (action === "deliver") await learnInvoice(world, principal, data.shipping_invoice, "shipping", id);
  if (action === "cancel" && data.invoice) await refreshInvoice(world, principal, data.invoice.id);
}

async function learnInvoice(world, principal, link, kind, orderId) {
  const op = "GET /invoices/{id}";
  const result = await call(world, op, principal, "GET", `/invoices/${link.id}`);
  if (!expectAnswer(world, op, result, "200")) return;
  const { tenant } = principal;
  const invoice = result.body.data;
  if (tenant.invoices.has(invoice.id)) return;
  tenant.invoices.set(invoice.id, { created: invoice, latest: invoice, kind, orderId });
  tenant.invoiceIds.push(invoice.id);
}

/** Whether the client may invoice `order`: submitted or later, and its voucher invoice (if any) cancelled. */
function invoiceable(tenant, order) {
  if (!INVOICEABLE.includes(order.latest.state)) return false;
  const link = tenant.invoiceOf.get(order.latest.id);
  return !link || tenant.invoices.get(link.id)?.latest.state === "cancelled";
}

async function createInvoice(world, principal) {
  const { tenant } = principal;
  const order = pickRecent(tenant.orderIds, tenant.orders, (o) => invoiceable(tenant, o));
  if (!order) return advanceCardOrder(world, principal);
  const op = "POST /invoices";
  const orderId = order.latest.id;
  const json = chance(0.5)
    ? { order_id: orderId, reference: `REF-${Math.floor(Math.random() * 1e6)}` }
    : { order_id: orderId };
  const { results, first } = await keyedPost(world, op, principal, "/invoices", json, CREATES.invoice);
  // The other principal of the tenant may have invoiced or cancelled the order meanwhile.
  results.forEach((r) => expectAnswer(world, op, r, "201", "409 conflict", "409 invalid_state"));
  if (!first) return refreshCardOrder(world, principal, orderId);
  const invoice = first.body.data[0];
  tenant.invoices.set(invoice.id, { created: invoice, latest: invoice, kind: "voucher", orderId });
  tenant.invoiceIds.push(invoice.id);
  if (tenant.invoiceOf.has(orderId)) world.counts.reinvoiced++;
  tenant.invoiceOf.set(orderId, { id: invoice.id, type: "invoice", number: invoice.number });
  tenant.acknowledged.set(`invoice.created ${invoice.id}`, invoice);
}

/** Pays or cancels an open invoice of any of the three kinds. */
async function transitionInvoice(world, principal) {
  const { tenant } = principal;
  const invoice = pickRecent(tenant.invoiceIds, tenant.invoices, (i) => i.latest.state === "open");
  if (!invoice) return createInvoice(world, principal);
  const action = chance(0.7) ? "pay" : "cancel";
  const { id } = invoice.latest;
  const op = `POST /invoices/{id}/${action}`;
  if (action === "pay") world.money.payTried.add(id);
  const result = await transitionPost(world, op, principal, `/invoices/${id}/${action}`);
  expectAnswer(world, op, result, "200", "409 invalid_state", "409 conflict");
  if (result.status !== 200) return refreshInvoice(world, principal, id);
  if (action === "pay") world.money.paid.push(id);
  observe(tenant.invoices, result.body.data);
  tenant.acknowledged.set(`${INVOICE_EVENTS[action]} ${id}`, result.body.data);
}

/** Sends a keyed POST again: the same request must replay, another body with the key is refused. */
async function retryKeyedPost(world, principal) {
  const earlier = principal.keyed.length ? pick(principal.keyed.slice(-50)) : undefined;
  if (!earlier) return createCardOrder(world, principal);
  if (chance(0.2)) {
    const op = `${earlier.op} (key reused, other body)`;
    const json = { ...earlier.json, [earlier.create.optionalText]: "Changed by the retry" };
    const result = await call(world, op, principal, "POST", earlier.path, { json, key: earlier.key });
    if (expectAnswer(world, op, result, "422 idempotency_key_reused")) world.counts.reusedKeysRefused++;
    return;
  }
  const op = `${earlier.op} (replay)`;
  const result = await call(world, op, principal, "POST", earlier.path, { json: earlier.json, key: earlier.key });
  if (!expectAnswer(world, op, result, "201")) return;
  const firstId = earlier.first.body.data[0].id;
  const id = result.body.data[0].id;
  if (id !== firstId) world.duplicated.add(`${earlier.create.kind} ${id}`);
  else if (!result.replayed || result.text !== earlier.first.text)
    noteUnexpected(world, `${op}: same id but not an exact replay`);
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

async function getById(world, principal) {
  const { tenant } = principal;
  if (chance(0.5) && tenant.invoiceIds.length) return refreshInvoice(world, principal, pick(tenant.invoiceIds));
  if (tenant.orderIds.length) return refreshCardOrder(world, principal, pick(tenant.orderIds));
  return createCardOrder(world, principal);
}

/**
 * A page agrees with itself: meta, size, filter. By number its rows and total agree exactly; by cursor
 * the rows decide (the count may have moved): a short page has no next link (src/db/keyset.ts).
 */
function pageIsConsistent(body, { page, pageSize, state, byCursor = false }) {
  const { meta, data, links } = body;
  const nextAgrees = byCursor
    ? data.length === pageSize || links.next === null
    : page < meta.total_pages
      ? data.length === pageSize && links.next !== null
      : links.next === null;
  return (
    meta.current_page === page &&
    meta.page_size === pageSize &&
    meta.total_pages === Math.max(1, Math.ceil(meta.total_entries / pageSize)) &&
    data.length <= pageSize &&
    nextAgrees &&
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
    if (!pageIsConsistent(result.body, { page: current, pageSize, state, byCursor: current > page })) {
      noteUnexpected(world, `${op}: inconsistent page`);
      const { meta, data, links } = result.body;
      console.error(
        `inconsistent page: ${JSON.stringify({ op, current, page, pageSize, state, meta, rows: data.length, next: links.next, states: data.map((i) => i.state) })}`,
      );
    }
    result.body.data.forEach((item) => observe(map, item));
    if (!result.body.links.next || !chance(0.3)) break;
    world.counts.listFollows++;
    result = await call(world, op, principal, "GET", result.body.links.next);
  }
}

const listCardOrders = (world, principal) =>
  listPage(
    world,
    principal,
    "/card_orders",
    CARD_ORDER_STATES,
    principal.tenant.orderIds.length,
    principal.tenant.orders,
  );
const listInvoices = (world, principal) =>
  listPage(
    world,
    principal,
    "/invoices",
    INVOICE_STATES,
    principal.tenant.invoiceIds.length,
    principal.tenant.invoices,
  );

async function listEntries(world, principal) {
  const { tenant } = principal;
  if (!tenant.orderIds.length) return createCardOrder(world, principal);
  const op = "GET /card_orders/{id}/entries";
  const result = await call(
    world,
    op,
    principal,
    "GET",
    `/card_orders/${pick(tenant.orderIds.slice(-10 * HOT_WINDOW))}/entries?page_size=${pick([2, 25])}`,
  );
  if (
    expectAnswer(world, op, result, "200") &&
    !pageIsConsistent(result.body, { page: 1, pageSize: result.body.meta.page_size })
  )
    noteUnexpected(world, `${op}: inconsistent page`);
}

async function putNotificationToken(world, principal) {
  const group = pick(world.groups);
  const device = pick(group.devices);
  const value = pick(group.values);
  await group.lock(async () => {
    const op = "PUT /voucher_owners/me/notification_tokens";
    const result = await call(world, op, principal, "PUT", "/voucher_owners/me/notification_tokens", {
      json: { value, device_identifier: device },
    });
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
  expectAnswer(
    world,
    op,
    await call(world, op, principal, "GET", "/voucher_owners/me/notification_tokens?page_size=100"),
    "200",
  );
}

// Relative weights, as a busy back office's; a step with nothing to work on takes the step before it.
const MIX = [
  [8, createCardOrder],
  [24, workOnDraft],
  [10, advanceCardOrder],
  [7, createInvoice],
  [7, transitionInvoice],
  [5, retryKeyedPost],
  [10, getById],
  [6, listCardOrders],
  [4, listInvoices],
  [3, listEntries],
  [6, putNotificationToken],
  [3, listNotificationTokens],
  [2, deleteNotificationToken],
  // docs/api.md parts 15 to 18 (money.mjs); the dunning run for a day ahead, every 5 s at most.
  [4, uploadStatement],
  [2, allocate],
  [2, collect],
  [2, resendDelivery],
  [1, runDunning],
];
const MIX_TOTAL = MIX.reduce((sum, [weight]) => sum + weight, 0);

function pickStep() {
  let roll = Math.random() * MIX_TOTAL;
  for (const [weight, step] of MIX) if ((roll -= weight) < 0) return step;
  return MIX[0][1];
}

/** `connections` loops, each taking random steps of random principals until the deadline. */
export async function runLoad(world, { duration, connections }, stopSignal) {
  const started = performance.now();
  const deadline = started + duration * 1000;
  const loop = async () => {
    while (performance.now() < deadline && !stopSignal.aborted) await pickStep()(world, pick(world.principals));
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return (performance.now() - started) / 1000;
}
