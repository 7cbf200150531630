// The latency scenario (issue 11 part 1): the service served through bench/wrapped-d1/worker.ts,
// whose D1 binding waits a fixed delay before every call, so that a request's latency is about its
// sequential D1 round trips times the delay. Every operation of the API is called once per round,
// each POST once without and once with an Idempotency-Key, on preconditions set up for it alone
// before the round's timed requests. Each kind of request has a customer and voucher owner of its
// own, so that no two requests of a round touch the same rows, and keeps it from round to round:
// after the warm-up round every kept total it moves exists (drizzle/0006_list_counts.sql), so the
// rows written are those of an established customer, not of one's very first order. Per request it
// keeps the time to the last byte of the body, the wrapper's own count of D1 calls
// (`x-d1-round-trips`) and the rows written that the service logged.
import { sign } from "hono/jwt";
import { call, expectStatus } from "./http.mjs";
import { PROBE_PREFIX } from "./log-lines.mjs";
import { median } from "./measure.mjs";

// docs/api.md part 2: every scope, so that one token reaches every operation.
const SCOPES = [
  "card_orders:read card_orders:write invoices:read invoices:write",
  "notification_tokens:write fulfilment webhooks:write events:read",
].join(" ");
// Operations the service answers without D1; GET /health is timed anyway, as the zero-round-trip floor.
const WITHOUT_D1 = new Set(["openApi", "docs"]);

const ORDER = { voucher_category: "meal", payment_method: "direct_debit", description: "bench latency" };
const ENTRY = { voucher_owner_id: "bench-owner", card_holder_name: "Grace Hopper", amount: "12.34" };
const HOOK = { url: "https://hooks.example/bench", event_types: ["*"] };
const DEVICES = "/voucher_owners/me/notification_tokens";
const PROFILE_PATH = "/customers/me/billing_profile";
// The orders are paid by direct debit: the profile holds the account and the mandate.
const PROFILE = {
  legal_name: "Bench Kantinen GmbH",
  street: "Hauptstraße 5",
  postcode: "80331",
  city: "München",
  country_code: "DE",
  email: "rechnung@bench.example",
  direct_debit_iban: "DE89370400440532013000",
  direct_debit_mandate_reference: "BENCH-1",
  direct_debit_mandate_signed_on: "2026-01-15",
};

/** The transitions that lead a new card order into each state (it gets one entry first). */
const PATH_TO = { draft: [], submitted: ["submit"], in_production: ["submit", "start_production"] };

/** A client of the service as one customer and voucher owner (`principal`), in round `round`. */
class Customer {
  constructor(url, token, principal, round) {
    Object.assign(this, { url, token, principal, round });
  }

  async post(path, json, status = 201) {
    return (await expectStatus(status, this.url + path, { token: this.token, method: "POST", json })).body;
  }

  /** The billing profile a submit needs (written once per client). */
  async profile() {
    this.profiled ??= expectStatus(200, this.url + PROFILE_PATH, { token: this.token, method: "PUT", json: PROFILE });
    await this.profiled;
  }

  /** A card order with one entry, led into `state`. */
  async order(state) {
    await this.profile();
    const order = (await this.post("/card_orders", ORDER)).data[0];
    await this.post(`/card_orders/${order.id}/entries`, ENTRY);
    for (const action of PATH_TO[state]) await this.post(`/card_orders/${order.id}/${action}`, undefined, 200);
    return order.id;
  }

  async invoice() {
    return (await this.post("/invoices", { order_id: await this.order("submitted") })).data[0].id;
  }

  async device(name) {
    await expectStatus(204, this.url + DEVICES, {
      token: this.token,
      method: "PUT",
      json: { value: `fcm-${this.principal}-${name}`, device_identifier: name },
    });
  }

  /** Deletes the endpoints of earlier rounds: a customer has at most 10 (src/domain/webhooks.ts). */
  async clearHooks() {
    const { body } = await expectStatus(200, `${this.url}/webhook_endpoints?page_size=100`, { token: this.token });
    for (const { id } of body.data)
      await expectStatus(204, `${this.url}/webhook_endpoints/${id}`, { token: this.token, method: "DELETE" });
  }
}

// One case per operation (operationId): its route, the status it answers, and what to set up for
// one request of it (the path, the body). A list shows one row of its own, so that its page is not
// empty.
const CASES = {
  health: { route: "GET /health", status: 200, request: async () => ({ path: "/health" }) },
  createCardOrder: {
    route: "POST /card_orders",
    status: 201,
    request: async () => ({ path: "/card_orders", json: ORDER }),
  },
  listCardOrders: {
    route: "GET /card_orders",
    status: 200,
    request: async (c) => (await c.order("draft"), { path: "/card_orders" }),
  },
  getCardOrder: {
    route: "GET /card_orders/{id}",
    status: 200,
    request: async (c) => ({ path: `/card_orders/${await c.order("draft")}` }),
  },
  submitCardOrder: {
    route: "POST /card_orders/{id}/submit",
    status: 200,
    request: async (c) => ({ path: `/card_orders/${await c.order("draft")}/submit` }),
  },
  cancelCardOrder: {
    route: "POST /card_orders/{id}/cancel",
    status: 200,
    request: async (c) => ({ path: `/card_orders/${await c.order("submitted")}/cancel` }),
  },
  startProductionCardOrder: {
    route: "POST /card_orders/{id}/start_production",
    status: 200,
    request: async (c) => ({ path: `/card_orders/${await c.order("submitted")}/start_production` }),
  },
  deliverCardOrder: {
    route: "POST /card_orders/{id}/deliver",
    status: 200,
    request: async (c) => ({ path: `/card_orders/${await c.order("in_production")}/deliver` }),
  },
  createCardOrderEntry: {
    route: "POST /card_orders/{id}/entries",
    status: 201,
    request: async (c) => ({ path: `/card_orders/${await c.order("draft")}/entries`, json: ENTRY }),
  },
  listCardOrderEntries: {
    route: "GET /card_orders/{id}/entries",
    status: 200,
    request: async (c) => ({ path: `/card_orders/${await c.order("draft")}/entries` }),
  },
  deleteCardOrderEntry: {
    route: "DELETE /card_orders/{id}/entries/{entry_id}",
    status: 204,
    request: async (c) => {
      const order = (await c.post("/card_orders", ORDER)).data[0].id;
      const entry = (await c.post(`/card_orders/${order}/entries`, ENTRY)).data[0].id;
      return { path: `/card_orders/${order}/entries/${entry}` };
    },
  },
  createInvoice: {
    route: "POST /invoices",
    status: 201,
    request: async (c) => ({ path: "/invoices", json: { order_id: await c.order("submitted") } }),
  },
  listInvoices: {
    route: "GET /invoices",
    status: 200,
    request: async (c) => (await c.invoice(), { path: "/invoices" }),
  },
  getInvoice: {
    route: "GET /invoices/{id}",
    status: 200,
    request: async (c) => ({ path: `/invoices/${await c.invoice()}` }),
  },
  payInvoice: {
    route: "POST /invoices/{id}/pay",
    status: 200,
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/pay` }),
  },
  cancelInvoice: {
    route: "POST /invoices/{id}/cancel",
    status: 200,
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/cancel` }),
  },
  listInvoiceLines: {
    route: "GET /invoices/{id}/lines",
    status: 200,
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/lines` }),
  },
  // The first request of a document: read, rendered by the documents Worker, stored in R2.
  getInvoiceDocument: {
    route: "GET /invoices/{id}/document",
    status: 200,
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/document` }),
  },
  getInvoiceCreditNote: {
    route: "GET /invoices/{id}/credit_note",
    status: 200,
    request: async (c) => {
      const id = await c.invoice();
      await c.post(`/invoices/${id}/cancel`, undefined, 200);
      return { path: `/invoices/${id}/credit_note` };
    },
  },
  putBillingProfile: {
    route: `PUT ${PROFILE_PATH}`,
    status: 200,
    request: async (c) => ({ path: PROFILE_PATH, json: { ...PROFILE, city: `München ${c.round}` } }),
  },
  getBillingProfile: {
    route: `GET ${PROFILE_PATH}`,
    status: 200,
    request: async (c) => (await c.profile(), { path: PROFILE_PATH }),
  },
  // A device new to its owner, who has devices (the earlier rounds').
  registerNotificationToken: {
    route: `PUT ${DEVICES}`,
    status: 204,
    request: async (c) => ({
      path: DEVICES,
      json: { value: `fcm-${c.principal}-${c.round}`, device_identifier: `device-${c.round}` },
    }),
  },
  listNotificationTokens: {
    route: `GET ${DEVICES}`,
    status: 200,
    request: async (c) => (await c.device("phone"), { path: DEVICES }),
  },
  deleteNotificationToken: {
    route: `DELETE ${DEVICES}/{device_identifier}`,
    status: 204,
    request: async (c) => (await c.device("phone"), { path: `${DEVICES}/phone` }),
  },
  // The submitted order's event is listed.
  listEvents: {
    route: "GET /events",
    status: 200,
    request: async (c) => (await c.order("submitted"), { path: "/events" }),
  },
  createWebhookEndpoint: {
    route: "POST /webhook_endpoints",
    status: 201,
    request: async (c) => (await c.clearHooks(), { path: "/webhook_endpoints", json: HOOK }),
  },
  listWebhookEndpoints: {
    route: "GET /webhook_endpoints",
    status: 200,
    request: async (c) => (
      await c.clearHooks(), await c.post("/webhook_endpoints", HOOK), { path: "/webhook_endpoints" }
    ),
  },
  deleteWebhookEndpoint: {
    route: "DELETE /webhook_endpoints/{id}",
    status: 204,
    request: async (c) => ({ path: `/webhook_endpoints/${(await c.post("/webhook_endpoints", HOOK)).data[0].id}` }),
  },
};

const methodOf = (operation) => CASES[operation].route.split(" ")[0];

/**
 * The scenario fails before it measures when the API has an operation this file has no case for:
 * its figures would silently leave that operation out.
 */
export async function checkCoverage(url) {
  const document = (await expectStatus(200, `${url}/openapi.json`)).body;
  const operations = Object.values(document.paths).flatMap((item) =>
    Object.values(item).map((operation) => operation.operationId),
  );
  const missing = operations.filter((id) => id && !WITHOUT_D1.has(id) && !(id in CASES));
  const unknown = Object.keys(CASES).filter((id) => !operations.includes(id));
  if (missing.length || unknown.length)
    throw new Error(
      `bench/latency.mjs covers other operations than the API has: missing ${missing.join(", ") || "none"}; ` +
        `unknown ${unknown.join(", ") || "none"}`,
    );
}

// Every timed request of a round: each operation, and each POST a second time with a key (docs/api.md
// part 7 keys POSTs only; PUT and DELETE are idempotent by themselves).
const VARIANTS = Object.keys(CASES).flatMap((operation) => [
  { operation, keyed: false },
  ...(methodOf(operation) === "POST" ? [{ operation, keyed: true }] : []),
]);

/**
 * @param {{
 *   url: string, secret: string, rounds: number, log: (line: string) => void,
 *   logLines: import("./log-lines.mjs").LogLines
 * }} options
 * @returns {Promise<Map<string, {
 *   operation: string, keyed: boolean, route: string, ms: number[], counted: number[], rowsWritten: number[]
 * }>>}
 *   by variant name ("createCardOrder", "createCardOrder+key"); the first round is a warm-up and not kept
 */
export async function measureLatency({ url, secret, rounds, log, logLines }) {
  await checkCoverage(url);
  const results = new Map();
  const exp = Math.floor(Date.now() / 1000) + 3600;
  for (let round = 0; round <= rounds; round++) {
    // Set up every request of the round at once (their preconditions are independent), then time
    // them one after another on an otherwise idle Worker.
    const prepared = await Promise.all(
      VARIANTS.map(async (variant, i) => {
        const principal = `bench-latency-${i}`;
        const token = await sign({ sub: principal, customer_id: principal, scope: SCOPES, exp }, secret, "HS256");
        const request = await CASES[variant.operation].request(new Customer(url, token, principal, round));
        return { ...variant, ...request, token, requestId: `${PROBE_PREFIX}latency-${round}-${i}` };
      }),
    );
    for (const request of prepared) {
      const headers = request.keyed ? { "Idempotency-Key": `bench-${request.requestId}` } : {};
      const { route, status: expected } = CASES[request.operation];
      const answer = await call(url + request.path, {
        method: methodOf(request.operation),
        token: request.token,
        json: request.json,
        headers,
        requestId: request.requestId,
      });
      if (answer.status !== expected)
        throw new Error(
          `latency, ${route} (${request.path}): ${answer.status}, not ${expected}: ${JSON.stringify(answer.body)}`,
        );
      if (round === 0) continue;
      const name = request.keyed ? `${request.operation}+key` : request.operation;
      if (!results.has(name))
        results.set(name, {
          operation: request.operation,
          keyed: request.keyed,
          route,
          ms: [],
          counted: [],
          rowsWritten: [],
        });
      const result = results.get(name);
      result.ms.push(answer.ms);
      result.counted.push(Number(answer.headers.get("x-d1-round-trips")));
      result.rowsWritten.push((await logLines.get(request.requestId)).d1_rows_written);
    }
    log(round === 0 ? "  latency: warm-up round done" : `  latency: round ${round} of ${rounds} done`);
  }
  return results;
}

/**
 * Per variant: the p50 latency; the round trips it implies, p50 / delay rounded down, since every
 * call waits the whole delay and what the service adds to it (its own work, local D1, loopback: 5
 * to 25 ms here) stays below one delay; the round trips the wrapper counted (the median over the
 * rounds) and the rows written (the median: they are the same every round).
 */
export function latencyFigures(results, delayMs) {
  return [...results].map(([name, result]) => {
    const p50 = median(result.ms);
    return {
      name,
      ...result,
      p50,
      implied: Math.floor(p50 / delayMs),
      counted: median(result.counted),
      rowsWritten: median(result.rowsWritten),
    };
  });
}

/**
 * What the JSON summary carries: round trips by operation (and "+key"), the largest of reads and of
 * writes, rows written by write.
 */
export function latencySummary(figures) {
  const isRead = (figure) => /^(list|get)/.test(figure.operation);
  const isWrite = (figure) => !isRead(figure) && figure.operation !== "health";
  return {
    round_trips: Object.fromEntries(figures.map((f) => [f.name, f.implied])),
    max_read_round_trips: Math.max(...figures.filter(isRead).map((f) => f.implied)),
    max_write_round_trips: Math.max(...figures.filter(isWrite).map((f) => f.implied)),
    rows_written: Object.fromEntries(figures.filter(isWrite).map((f) => [f.name, f.rowsWritten])),
  };
}
