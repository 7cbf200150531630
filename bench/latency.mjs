// The latency scenario (issue 11 part 1, issue 36 point 4; BENCHMARKS.md, "Round trips"): every
// operation once per round on a D1 that delays and counts each call (bench/wrapped-d1), each kind of
// request on rows of its own; the bars are judged on the counted round trips.
import { fstatSync, openSync, readSync } from "node:fs";
import { apiVars } from "../scripts/derived-config.mjs";
import { importSource } from "../scripts/import-source.mjs";
import { call, expectStatus, tokenOf } from "./http.mjs";
import { PROBE_PREFIX } from "./log-lines.mjs";
import { median } from "./measure.mjs";

// docs/api.md part 2: every scope, so that one token reaches every operation (payments' too).
const SCOPES = [
  "card_orders:read card_orders:write invoices:read invoices:write",
  "notification_tokens:write fulfilment webhooks:write events:read payments:read payments:write",
].join(" ");
// Operations the service answers without D1; GET /health is timed anyway, as the zero-round-trip floor.
const WITHOUT_D1 = new Set(["openApi", "docs", "serviceIndex"]);

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

const { addDays, camt053File, dayIn, isTarget2Day } = await importSource(
  [
    'export { camt053File } from "./test/support/camt053-builder";',
    'export { isTarget2Day } from "./src/domain/target2";',
    'export { addDays, dayIn } from "./src/domain/time";',
  ].join("\n"),
);
const VARS = apiVars();

/** The first TARGET2 business day on or after `day`. */
function target2DayFrom(day) {
  let next = day;
  while (!isTarget2Day(next)) next = addDays(next, 1);
  return next;
}

// docs/api.md part 16: DUE is the first collection date that takes today's invoices, LATER the next; a
// mandate signed 3 years before LATER has expired on LATER, not on DUE. Read at each use (midnight).
function days() {
  const today = dayIn(new Date(), VARS.BUSINESS_TIME_ZONE);
  const due = target2DayFrom(addDays(today, 14));
  const later = target2DayFrom(addDays(due, 1));
  return { today, due, later, lapsingSignedOn: `${Number(later.slice(0, 4)) - 3}${later.slice(4)}` };
}

/** One booked credit naming nothing (stored `unmatched`); a unique AcctSvcrRef each time. */
function statementFile() {
  const id = crypto.randomUUID().replaceAll("-", "");
  return camt053File({
    version: "camt.053.001.08",
    messageId: id,
    statements: [
      {
        id,
        iban: VARS.CREDITOR_IBAN,
        entries: [
          {
            amount: "50.00",
            creditDebit: "credit",
            status: "BOOK",
            bookedOn: days().today,
            accountServicerReference: id,
          },
        ],
      },
    ],
  });
}

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

  async get(path) {
    return (await expectStatus(200, this.url + path, { token: this.token })).body;
  }

  /** The billing profile a submit needs (written once per client: the first call's `profile`). */
  async profile(profile = PROFILE) {
    this.profiled ??= expectStatus(200, this.url + PROFILE_PATH, { token: this.token, method: "PUT", json: profile });
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

  /** An invoice under a mandate of its own, expired on LATER, not on DUE (new each round). */
  async lapsingInvoice() {
    await this.profile({
      ...PROFILE,
      direct_debit_mandate_reference: `BENCH-LAPSING-${this.round}`,
      direct_debit_mandate_signed_on: days().lapsingSignedOn,
    });
    return this.invoice();
  }

  /** A direct debit collection on DUE: it takes this client's new invoice (and any other collectable). */
  async collection() {
    await this.invoice();
    return (await this.post("/direct_debit_collections", { collection_date: days().due })).data[0].id;
  }

  /** An uploaded bank statement, still `processing`. */
  async statement() {
    return (await expectStatus(202, `${this.url}/bank_statements`, { token: this.token, xml: statementFile() })).body
      .data[0].id;
  }

  /** The unmatched transaction of a statement, once the jobs Worker has read and stored it. */
  async transaction() {
    const id = await this.statement();
    for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 200))) {
      const { state, error } = (await this.get(`/bank_statements/${id}`)).data;
      if (state === "processed") break;
      if (state === "failed" || Date.now() > deadline) throw new Error(`bank statement ${id}: ${state} ${error ?? ""}`);
    }
    return (await this.get(`/bank_transactions?bank_statement_id=${id}`)).data[0].id;
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

// One case per operation (operationId), the setup of one request (`json` or `xml`); its route and status
// are the OpenAPI document's. `alone` cases are set up one after another first; those needing an open
// invoice precede the collection.
const CASES = {
  health: { request: async () => ({ path: "/health" }) },
  createCardOrder: {
    request: async () => ({ path: "/card_orders", json: ORDER }),
  },
  listCardOrders: {
    request: async (c) => (await c.order("draft"), { path: "/card_orders" }),
  },
  getCardOrder: {
    request: async (c) => ({ path: `/card_orders/${await c.order("draft")}` }),
  },
  submitCardOrder: {
    request: async (c) => ({ path: `/card_orders/${await c.order("draft")}/submit` }),
  },
  cancelCardOrder: {
    request: async (c) => ({ path: `/card_orders/${await c.order("submitted")}/cancel` }),
  },
  startProductionCardOrder: {
    request: async (c) => ({ path: `/card_orders/${await c.order("submitted")}/start_production` }),
  },
  deliverCardOrder: {
    request: async (c) => ({ path: `/card_orders/${await c.order("in_production")}/deliver` }),
  },
  createCardOrderEntry: {
    request: async (c) => ({ path: `/card_orders/${await c.order("draft")}/entries`, json: ENTRY }),
  },
  listCardOrderEntries: {
    request: async (c) => ({ path: `/card_orders/${await c.order("draft")}/entries` }),
  },
  deleteCardOrderEntry: {
    request: async (c) => {
      const order = (await c.post("/card_orders", ORDER)).data[0].id;
      const entry = (await c.post(`/card_orders/${order}/entries`, ENTRY)).data[0].id;
      return { path: `/card_orders/${order}/entries/${entry}` };
    },
  },
  createInvoice: {
    request: async (c) => ({ path: "/invoices", json: { order_id: await c.order("submitted") } }),
  },
  listInvoices: {
    request: async (c) => (await c.invoice(), { path: "/invoices" }),
  },
  getInvoice: {
    request: async (c) => ({ path: `/invoices/${await c.invoice()}` }),
  },
  payInvoice: {
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/pay` }),
  },
  cancelInvoice: {
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/cancel` }),
  },
  listInvoiceLines: {
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/lines` }),
  },
  // The first request of a document: read, rendered by the documents Worker, stored in R2.
  getInvoiceDocument: {
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/document` }),
  },
  getInvoiceCreditNote: {
    request: async (c) => {
      const id = await c.invoice();
      await c.post(`/invoices/${id}/cancel`, undefined, 200);
      return { path: `/invoices/${id}/credit_note` };
    },
  },
  putBillingProfile: {
    request: async (c) => ({ path: PROFILE_PATH, json: { ...PROFILE, city: `München ${c.round}` } }),
  },
  getBillingProfile: {
    request: async (c) => (await c.profile(), { path: PROFILE_PATH }),
  },
  // A device new to its owner, who has devices (the earlier rounds').
  registerNotificationToken: {
    request: async (c) => ({
      path: DEVICES,
      json: { value: `fcm-${c.principal}-${c.round}`, device_identifier: `device-${c.round}` },
    }),
  },
  listNotificationTokens: {
    request: async (c) => (await c.device("phone"), { path: DEVICES }),
  },
  deleteNotificationToken: {
    request: async (c) => (await c.device("phone"), { path: `${DEVICES}/phone` }),
  },
  // The submitted order's event is listed.
  listEvents: {
    request: async (c) => (await c.order("submitted"), { path: "/events" }),
  },
  createWebhookEndpoint: {
    request: async (c) => (await c.clearHooks(), { path: "/webhook_endpoints", json: HOOK }),
  },
  listWebhookEndpoints: {
    request: async (c) => (
      await c.clearHooks(), await c.post("/webhook_endpoints", HOOK), { path: "/webhook_endpoints" }
    ),
  },
  deleteWebhookEndpoint: {
    request: async (c) => ({ path: `/webhook_endpoints/${(await c.post("/webhook_endpoints", HOOK)).data[0].id}` }),
  },
  // docs/api.md part 15: the back office's statements and transactions, an invoice's payments.
  createBankStatements: {
    request: async () => ({ path: "/bank_statements", xml: statementFile() }),
  },
  listBankStatements: {
    request: async (c) => (await c.statement(), { path: "/bank_statements" }),
  },
  getBankStatement: {
    request: async (c) => ({ path: `/bank_statements/${await c.statement()}` }),
  },
  listBankTransactions: {
    request: async (c) => (await c.transaction(), { path: "/bank_transactions" }),
  },
  getBankTransaction: {
    request: async (c) => ({ path: `/bank_transactions/${await c.transaction()}` }),
  },
  createAllocation: {
    request: async (c) => {
      const [transaction, invoice] = await Promise.all([c.transaction(), c.invoice()]);
      return { path: `/bank_transactions/${transaction}/allocations`, json: { invoice_id: invoice, amount: "1.00" } };
    },
  },
  // docs/api.md part 17: an invoice's e-mailed documents (the profile has an e-mail address).
  listInvoiceDeliveries: {
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/deliveries` }),
  },
  createInvoiceDelivery: {
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/deliveries`, json: {} }),
  },
  listAllInvoiceDeliveries: {
    request: async (c) => (await c.invoice(), { path: "/invoice_deliveries" }),
  },
  // A paid invoice: one payment (manual).
  listInvoicePayments: {
    request: async (c) => {
      const id = await c.invoice();
      await c.post(`/invoices/${id}/pay`, undefined, 200);
      return { path: `/invoices/${id}/payments` };
    },
  },
  getInvoiceBalance: {
    request: async (c) => ({ path: `/invoices/${await c.invoice()}/balance` }),
  },
  // docs/api.md part 16. A collection takes every collectable invoice there is, the round's others'
  // too: the request without a key, on LATER, takes them all but the keyed one's, whose mandate has
  // expired on LATER; the keyed request, which follows, takes that one on DUE.
  createDirectDebitCollection: {
    request: async (c, { keyed }) => {
      await (keyed ? c.lapsingInvoice() : c.invoice());
      return { path: "/direct_debit_collections", json: { collection_date: keyed ? days().due : days().later } };
    },
  },
  // These collections are made before any other request's invoice exists, which they would take.
  listDirectDebitCollections: {
    alone: true,
    request: async (c) => (await c.collection(), { path: "/direct_debit_collections" }),
  },
  getDirectDebitCollection: {
    alone: true,
    request: async (c) => ({ path: `/direct_debit_collections/${await c.collection()}` }),
  },
  // The first request of the pain.008 file: written from the collection, stored in R2.
  getDirectDebitCollectionDocument: {
    alone: true,
    request: async (c) => ({ path: `/direct_debit_collections/${await c.collection()}/document` }),
  },
};

/** By operationId: its route ("GET /card_orders/{id}") and success status, as the service documents them. */
async function operationsOf(url) {
  const document = (await expectStatus(200, `${url}/openapi.json`)).body;
  return new Map(
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => [
        operation.operationId,
        {
          route: `${method.toUpperCase()} ${path}`,
          status: Number(Object.keys(operation.responses).find((status) => status.startsWith("2"))),
        },
      ]),
    ),
  );
}

/** The API's operations without a case here (reported, not fatal); a case for a removed one is fatal. */
export async function checkCoverage(url) {
  const operations = [...(await operationsOf(url)).keys()];
  const unknown = Object.keys(CASES).filter((id) => !operations.includes(id));
  if (unknown.length)
    throw new Error(`bench/latency.mjs has cases for operations the API lacks: ${unknown.join(", ")}`);
  return operations.filter((id) => id && !WITHOUT_D1.has(id) && !(id in CASES));
}

/** Per variant ("createCardOrder", "…+key"): ms, counted, calls, rowsWritten of each round but the first. */
export async function measureLatency({ url, secret, rounds, log, logLines }) {
  const operations = await operationsOf(url);
  const methodOf = (operation) => operations.get(operation).route.split(" ")[0];
  // Each operation once a round, each POST again with a key (docs/api.md part 7 keys POSTs only).
  const variants = Object.keys(CASES).flatMap((operation) => [
    { operation, keyed: false },
    ...(methodOf(operation) === "POST" ? [{ operation, keyed: true }] : []),
  ]);
  const results = new Map();
  const prepare = async (variant, i, round) => {
    const principal = `bench-latency-${i}`;
    const token = await tokenOf(secret, { sub: principal, customer_id: principal, scope: SCOPES });
    const request = await CASES[variant.operation].request(new Customer(url, token, principal, round), variant);
    return { ...variant, ...request, token, requestId: `${PROBE_PREFIX}latency-${round}-${i}` };
  };
  const isAlone = (variant) => CASES[variant.operation].alone === true;
  for (let round = 0; round <= rounds; round++) {
    // Set up the round (`alone` first, then the rest at once), then time each request on an idle Worker.
    const prepared = [];
    for (const [i, variant] of variants.entries()) {
      if (isAlone(variant)) prepared[i] = await prepare(variant, i, round);
    }
    await Promise.all(
      variants.map(async (variant, i) => {
        if (!isAlone(variant)) prepared[i] = await prepare(variant, i, round);
      }),
    );
    for (const request of prepared) {
      const headers = request.keyed ? { "Idempotency-Key": `bench-${request.requestId}` } : {};
      const { route, status: expected } = operations.get(request.operation);
      const options = { token: request.token, headers, requestId: request.requestId };
      const answer = await call(url + request.path, {
        ...options,
        method: methodOf(request.operation),
        json: request.json,
        xml: request.xml,
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
          calls: [],
          rowsWritten: [],
        });
      const result = results.get(name);
      result.ms.push(answer.ms);
      result.counted.push(Number(answer.headers.get("x-d1-round-trips")));
      result.calls.push(Number(answer.headers.get("x-d1-calls")));
      result.rowsWritten.push((await logLines.get(request.requestId)).d1_rows_written);
    }
    log(round === 0 ? "  latency: warm-up round done" : `  latency: round ${round} of ${rounds} done`);
  }
  return results;
}

/** Hands `onLine` each line of a Worker's `logFile` as it comes, without wrangler's "[worker-name] " prefix. */
export function followWorkerLog(path, onLine) {
  const [file, decoder] = [openSync(path, "r"), new TextDecoder()];
  let [read, partial] = [0, ""];
  setInterval(() => {
    const size = fstatSync(file).size;
    if (size <= read) return;
    const chunk = Buffer.alloc(size - read);
    read += readSync(file, chunk, 0, chunk.length, read);
    const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
    partial = lines.pop();
    for (const line of lines) onLine(line.replace(/^\[[\w-]+\] /, ""));
  }, 50).unref();
}

/** Per variant: p50, p50 / delay rounded down, counted round trips (largest; stable?), calls, rows written. */
export function latencyFigures(results, delayMs) {
  return [...results].map(([name, result]) => {
    const p50 = median(result.ms);
    return {
      name,
      ...result,
      p50,
      implied: Math.floor(p50 / delayMs),
      counted: Math.max(...result.counted),
      countedRounds: result.counted,
      steady: result.counted.every((n) => n === result.counted[0]),
      maxCalls: Math.max(...result.calls),
      rowsWritten: median(result.rowsWritten),
    };
  });
}

/** The JSON summary's part: round trips by operation, the largest read and write, variations, rows written. */
export function latencySummary(figures) {
  const isRead = (figure) => /^(list|get)/.test(figure.operation);
  const isWrite = (figure) => !isRead(figure) && figure.operation !== "health";
  return {
    round_trips: Object.fromEntries(figures.map((f) => [f.name, f.counted])),
    max_read_round_trips: Math.max(...figures.filter(isRead).map((f) => f.counted)),
    max_write_round_trips: Math.max(...figures.filter(isWrite).map((f) => f.counted)),
    round_trips_varied: figures.filter((f) => !f.steady).map((f) => f.name),
    round_trips_by_time: Object.fromEntries(
      figures.filter((f) => f.implied !== f.counted).map((f) => [f.name, f.implied]),
    ),
    rows_written: Object.fromEntries(figures.filter(isWrite).map((f) => [f.name, f.rowsWritten])),
  };
}
