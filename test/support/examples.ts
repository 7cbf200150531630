import { env } from "cloudflare:workers";
import type * as z from "zod/mini";
import { endpoints } from "../../src/app";
import type { RouteSpec } from "../../src/http/route";
import { openApiDocument } from "../../src/openapi/document";
import { components } from "../../src/schemas/registry";
import {
  addEntry,
  BASE,
  call,
  createInvoice,
  newBillingProfile,
  newEntry,
  orderIn,
  send,
  token,
  unique,
  withBillingProfile,
} from "./api";
import { collectableInvoice, collection, credit, earliestDate, processed, statementFile } from "./payments";
import { DATABASE_ROUTES, ROUTES, routeName } from "./routes";

// One successful request per operation of the route table, on fresh preconditions: the base case of
// every test that must cover each route that uses the database (test/round-trips.test.ts,
// test/fault-injection.test.ts, test/query-plans.test.ts, test/http-headers.test.ts). A new route
// gets its cases in all of them from its entry here; without one, routeExamples() fails naming it.

const EXAMPLES_FILE = "test/support/examples.ts";

/** A request as a client sends it (requestOf): its bearer token, and its body if it has one. */
export interface ExampleRequest {
  method: string;
  /** With its query string, if any. */
  path: string;
  /** The bearer token. */
  auth: string;
  /** A JSON body. */
  json?: object;
  /** A file as the body instead (a route that takes an upload), with its media type. */
  file?: { contentType: string; content: string | Uint8Array };
}

export interface Example {
  /** What the request answers. */
  status: RouteSpec["success"]["status"];
  /** Fresh preconditions (set up through the API or straight into D1), and the request to run on them. */
  prepare: () => Promise<ExampleRequest>;
  /** What the same request answers when it runs again after it ran (a DELETE: 404, docs/api.md part 10). */
  repeated?: 404;
  /** Puts back what a run left outside D1 (a document stored in R2), so that a run again takes the same way. */
  reset?: (request: ExampleRequest) => Promise<void>;
}

/**
 * The parts of an example's request as the client sends them: the bearer token, the body (JSON, or the
 * file) with its Content-Type, and `headers` over them. A new Request can be built from them for each run.
 */
export function partsOf(
  { method, path, auth, json, file }: ExampleRequest,
  headers: Record<string, string> = {},
): { method: string; path: string; headers: Record<string, string>; body?: string | Uint8Array } {
  const type = json !== undefined ? "application/json" : file?.contentType;
  return {
    method,
    path,
    headers: { Authorization: `Bearer ${auth}`, ...(type === undefined ? {} : { "Content-Type": type }), ...headers },
    body: json !== undefined ? JSON.stringify(json) : file?.content,
  };
}

/** An example's request, to send to the Worker (support/api.ts `send`). */
export function requestOf(request: ExampleRequest, headers: Record<string, string> = {}): Request {
  const { method, path, headers: sent, body } = partsOf(request, headers);
  return new Request(BASE + path, { method, headers: sent, body });
}

/** A card order with two entries (direct debit: its customer's billing profile has a mandate), led into `state`. */
export const exampleOrder = (auth: string, state: Parameters<typeof orderIn>[1] = "draft") =>
  orderIn(auth, state, {
    order: { voucher_category: "meal", payment_method: "direct_debit", cost_center: "CC-1" },
    entries: [
      { ...newEntry, card_holder_name: "Grace Hopper", amount: "40.00" },
      { ...newEntry, card_holder_name: "Grace Hopper", amount: "12.34" },
    ],
  });

const order = exampleOrder;
const invoiced = async (auth: string) => createInvoice(auth, (await order(auth, "submitted")).id, "ref");

/**
 * An invoice with a level-1 reminder as the dunning run makes it (docs/api.md part 18), written straight
 * into D1 and R2: its row (the trigger keeps the list's total) and its kept PDF.
 */
async function reminded(auth: string): Promise<{ id: string; invoiceId: string }> {
  const invoice = await invoiced(auth);
  const id = crypto.randomUUID();
  const at = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO reminders (id, invoice_id, customer_id, invoice_number, level, title, issued_on, pay_by, " +
      "default_since, open_amount, interest_percent, interest_amount, fee_amount, total_amount, created_at) " +
      "VALUES (?, ?, ?, ?, 1, 'Zahlungserinnerung', ?, ?, NULL, 100, NULL, 0, 0, 100, ?)",
  )
    .bind(id, invoice.id, customerOf(auth), invoice.number, invoice.due_on, invoice.due_on, at)
    .run();
  await env.DOCUMENTS.put(`reminders/${id}.pdf`, "%PDF-1.7 a reminder", {
    httpMetadata: { contentType: "application/pdf" },
    customMetadata: { owner: customerOf(auth) },
  });
  return { id, invoiceId: invoice.id };
}

const customerOf = (auth: string): string =>
  (JSON.parse(atob(auth.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as { customer_id: string }).customer_id;

/** A request on something `setup` made for a fresh principal: `request` gets its id. */
const on =
  (setup: (auth: string) => Promise<{ id: string }>, method: string, request: (id: string) => string) =>
  async (): Promise<ExampleRequest> => {
    const auth = await token();
    return { auth, method, path: request((await setup(auth)).id) };
  };

/** A GET of `path` after `setup` (a list then has a row in it, so that a per-row lookup would show). */
const readAfter = (path: string, setup: (auth: string) => Promise<unknown>) => async (): Promise<ExampleRequest> => {
  const auth = await token();
  await setup(auth);
  return { auth, method: "GET", path };
};

const registerDevice = async (auth: string, device = "phone") => {
  const response = await call("/voucher_owners/me/notification_tokens", {
    token: auth,
    method: "PUT",
    json: { value: unique("fcm"), device_identifier: device },
  });
  if (response.status !== 204) throw new Error(`registering device ${device}: ${response.status}`);
};

const webhookEndpoint = { url: "https://hooks.example/in", event_types: ["*"] };
const subscribe = async (auth: string): Promise<{ id: string }> => {
  const response = await call("/webhook_endpoints", { token: auth, json: webhookEndpoint });
  if (response.status !== 201) throw new Error(`creating a webhook endpoint: ${response.status}`);
  return ((await response.json()) as any).data[0];
};

/** A credit of 1.00 naming nothing, read from a statement: an unmatched bank transaction. */
const unmatchedCredit = async (auth: string): Promise<{ id: string }> =>
  (await processed(auth, [credit("1.00")])).transactions[0];

/** An e-invoice of a fresh invoice (led through `actions` first); each run renders it again (R2 emptied). */
const documentOf = (route: string, key: string, ...actions: string[]): Example => ({
  status: 200,
  prepare: on(
    async (auth) => {
      const invoice = await invoiced(auth);
      for (const action of actions) {
        const response = await call(`/invoices/${invoice.id}/${action}`, { token: auth, method: "POST" });
        if (response.status !== 200) throw new Error(`${action} of invoice ${invoice.id}: ${response.status}`);
      }
      return invoice;
    },
    "GET",
    (id) => `/invoices/${id}/${route}?format=cii`,
  ),
  reset: async (request) => {
    await env.DOCUMENTS.delete(`invoices/${request.path.split("/")[2]}/${key}.cii`);
  },
});

/** The example of each operation that uses the database, by operationId (src/app.ts `endpoints`). */
export const EXAMPLES: Record<string, Example> = {
  createCardOrder: {
    status: 201,
    prepare: async () => ({
      auth: await token(),
      method: "POST",
      path: "/card_orders",
      json: {
        voucher_category: "gift",
        description: "example",
        invoice_reference: "PO-1",
        cost_center: "CC-9",
        payment_method: "bank_transfer",
      },
    }),
  },
  listCardOrders: { status: 200, prepare: readAfter("/card_orders?state=draft", (auth) => order(auth)) },
  getCardOrder: { status: 200, prepare: on(order, "GET", (id) => `/card_orders/${id}`) },
  submitCardOrder: { status: 200, prepare: on(order, "POST", (id) => `/card_orders/${id}/submit`) },
  cancelCardOrder: {
    status: 200,
    prepare: on(
      (auth) => order(auth, "submitted"),
      "POST",
      (id) => `/card_orders/${id}/cancel`,
    ),
  },
  startProductionCardOrder: {
    status: 200,
    prepare: on(
      (auth) => order(auth, "submitted"),
      "POST",
      (id) => `/card_orders/${id}/start_production`,
    ),
  },
  deliverCardOrder: {
    status: 200,
    prepare: on(
      (auth) => order(auth, "in_production"),
      "POST",
      (id) => `/card_orders/${id}/deliver`,
    ),
  },
  createCardOrderEntry: {
    status: 201,
    prepare: async () => ({
      ...(await on(order, "POST", (id) => `/card_orders/${id}/entries`)()),
      json: { voucher_owner_id: "owner-2", card_holder_name: "Ada Lovelace", amount: "25.00" },
    }),
  },
  listCardOrderEntries: { status: 200, prepare: on(order, "GET", (id) => `/card_orders/${id}/entries`) },
  deleteCardOrderEntry: {
    status: 204,
    repeated: 404,
    prepare: async () => {
      const auth = await token();
      const { id } = await order(auth);
      const entry = await addEntry(auth, id, { ...newEntry, card_holder_name: "Grace Hopper", amount: "40.00" });
      return { auth, method: "DELETE", path: `/card_orders/${id}/entries/${entry.id}` };
    },
  },
  createInvoice: {
    status: 201,
    prepare: async () => {
      const auth = await token();
      const { id } = await order(auth, "submitted");
      return { auth, method: "POST", path: "/invoices", json: { order_id: id, reference: "R-1" } };
    },
  },
  listInvoices: { status: 200, prepare: readAfter("/invoices?state=open", invoiced) },
  getInvoice: { status: 200, prepare: on(invoiced, "GET", (id) => `/invoices/${id}`) },
  payInvoice: { status: 200, prepare: on(invoiced, "POST", (id) => `/invoices/${id}/pay`) },
  cancelInvoice: { status: 200, prepare: on(invoiced, "POST", (id) => `/invoices/${id}/cancel`) },
  listInvoiceLines: { status: 200, prepare: on(invoiced, "GET", (id) => `/invoices/${id}/lines`) },
  getInvoiceDocument: documentOf("document", "invoice"),
  getInvoiceCreditNote: documentOf("credit_note", "credit_note", "cancel"),
  putBillingProfile: {
    status: 200,
    prepare: async () => ({
      auth: await token(),
      method: "PUT",
      path: "/customers/me/billing_profile",
      json: newBillingProfile,
    }),
  },
  getBillingProfile: { status: 200, prepare: readAfter("/customers/me/billing_profile", withBillingProfile) },
  registerNotificationToken: {
    status: 204,
    prepare: async () => ({
      auth: await token(),
      method: "PUT",
      path: "/voucher_owners/me/notification_tokens",
      json: { value: unique("fcm"), device_identifier: "phone" },
    }),
  },
  listNotificationTokens: {
    status: 200,
    prepare: readAfter("/voucher_owners/me/notification_tokens", (auth) => registerDevice(auth)),
  },
  // One of two devices; a second run answers 204 too (deleting a device that is gone is no error).
  deleteNotificationToken: {
    status: 204,
    prepare: async () => {
      const auth = await token();
      await registerDevice(auth, "phone");
      await registerDevice(auth, "tablet");
      return { auth, method: "DELETE", path: "/voucher_owners/me/notification_tokens/phone" };
    },
  },
  listEvents: { status: 200, prepare: readAfter("/events?type=invoice.created", invoiced) },
  createWebhookEndpoint: {
    status: 201,
    prepare: async () => ({ auth: await token(), method: "POST", path: "/webhook_endpoints", json: webhookEndpoint }),
  },
  listWebhookEndpoints: { status: 200, prepare: readAfter("/webhook_endpoints", subscribe) },
  deleteWebhookEndpoint: {
    status: 204,
    repeated: 404,
    prepare: on(subscribe, "DELETE", (id) => `/webhook_endpoints/${id}`),
  },
  listInvoicePayments: {
    status: 200,
    prepare: on(
      async (auth) => {
        const invoice = await invoiced(auth);
        const response = await call(`/invoices/${invoice.id}/pay`, { token: auth, method: "POST" });
        if (response.status !== 200) throw new Error(`paying invoice ${invoice.id}: ${response.status}`);
        return invoice;
      },
      "GET",
      (id) => `/invoices/${id}/payments`,
    ),
  },
  getInvoiceBalance: { status: 200, prepare: on(invoiced, "GET", (id) => `/invoices/${id}/balance`) },
  // docs/api.md part 17: an issued invoice has its delivery.
  listInvoiceDeliveries: { status: 200, prepare: on(invoiced, "GET", (id) => `/invoices/${id}/deliveries`) },
  getInvoiceDunning: { status: 200, prepare: on(invoiced, "GET", (id) => `/invoices/${id}/dunning`) },
  putInvoiceDunning: {
    status: 200,
    prepare: async () => {
      const invoice = await invoiced(await token());
      return {
        auth: await token({ customer_id: undefined }),
        method: "PUT",
        path: `/invoices/${invoice.id}/dunning`,
        json: { hold: true, reason: "Disputed: two cards missing." },
      };
    },
  },
  listInvoiceReminders: {
    status: 200,
    prepare: async () => {
      const auth = await token();
      const { invoiceId } = await reminded(auth);
      return { auth, method: "GET", path: `/invoices/${invoiceId}/reminders` };
    },
  },
  getReminderDocument: { status: 200, prepare: on(reminded, "GET", (id) => `/reminders/${id}/document`) },
  createInvoiceDelivery: {
    status: 201,
    prepare: async () => {
      const auth = await token();
      const invoice = await invoiced(auth);
      return {
        auth,
        method: "POST",
        path: `/invoices/${invoice.id}/deliveries`,
        json: { recipient: "einkauf@buyer.example", format: "cii" },
      };
    },
  },
  listAllInvoiceDeliveries: {
    status: 200,
    prepare: async () => {
      const auth = await token();
      const invoice = await invoiced(auth);
      return { auth, method: "GET", path: `/invoice_deliveries?state=pending&invoice_id=${invoice.id}` };
    },
  },
  createBankStatements: {
    status: 202,
    prepare: async () => ({
      auth: await token(),
      method: "POST",
      path: "/bank_statements",
      file: { contentType: "application/xml", content: statementFile([credit("1.00")]) },
    }),
  },
  listBankStatements: { status: 200, prepare: readAfter("/bank_statements", (auth) => unmatchedCredit(auth)) },
  getBankStatement: {
    status: 200,
    prepare: on(
      async (auth) => (await processed(auth, [credit("1.00")])).statement,
      "GET",
      (id) => `/bank_statements/${id}`,
    ),
  },
  listBankTransactions: {
    status: 200,
    prepare: readAfter("/bank_transactions?state=unmatched", (auth) => unmatchedCredit(auth)),
  },
  getBankTransaction: { status: 200, prepare: on(unmatchedCredit, "GET", (id) => `/bank_transactions/${id}`) },
  createAllocation: {
    status: 201,
    prepare: async () => {
      const auth = await token();
      const invoice = await invoiced(auth);
      const { id } = await unmatchedCredit(auth);
      return {
        auth,
        method: "POST",
        path: `/bank_transactions/${id}/allocations`,
        json: { invoice_id: invoice.id, amount: "1.00" },
      };
    },
  },
  createDirectDebitCollection: {
    status: 201,
    prepare: async () => {
      const auth = await token();
      await collectableInvoice(auth);
      return { auth, method: "POST", path: "/direct_debit_collections", json: { collection_date: earliestDate() } };
    },
  },
  listDirectDebitCollections: { status: 200, prepare: readAfter("/direct_debit_collections", collection) },
  getDirectDebitCollection: { status: 200, prepare: on(collection, "GET", (id) => `/direct_debit_collections/${id}`) },
  getDirectDebitCollectionDocument: {
    status: 200,
    prepare: on(collection, "GET", (id) => `/direct_debit_collections/${id}/document`),
    reset: async (request) => {
      await env.DOCUMENTS.delete(`collections/${request.path.split("/")[2]}.xml`);
    },
  },
};

/** A route of the table with its example. */
export interface RouteExample {
  spec: RouteSpec;
  /** Its route name (test/support/routes.ts), e.g. `POST /card_orders/{id}/submit`. */
  name: string;
  operationId: string;
  example: Example;
  /** The GET route whose example this one's is, with the path the rest of the way (`readsBelow`). */
  below?: RouteSpec;
}

/** The OpenAPI document's example of a route's JSON body (src/openapi/examples.ts), if it has one. */
let document: { components: { schemas: Record<string, { examples?: object[] }> } } | undefined;
function bodyExample(spec: RouteSpec): object | undefined {
  const id = components.get(spec.body as z.ZodMiniType)?.id;
  if (id === undefined) return undefined;
  document ??= openApiDocument(endpoints) as unknown as typeof document;
  return document!.components.schemas[id]?.examples?.[0];
}

/**
 * The examples of routes on a collection (a path without parameters) that have none: a POST sends its
 * body's example in the OpenAPI document, as a fresh customer with every scope; a GET reads the
 * collection after that POST's example ran, as its customer. A resource's create and list need no entry
 * here; one that needs more (a back-office token, preconditions) fails its cases, and gets one.
 */
function onCollections(routes: readonly RouteSpec[], examples: Record<string, Example>): Record<string, Example> {
  const made: Record<string, Example> = {};
  const lacking = routes.filter((spec) => !spec.path.includes("{") && !Object.hasOwn(examples, spec.operationId));
  for (const spec of lacking.filter(({ method }) => method === "post")) {
    const json = bodyExample(spec);
    if (json !== undefined)
      made[spec.operationId] = {
        status: spec.success.status,
        prepare: async () => ({ auth: await token(), method: "POST", path: spec.path, json }),
      };
  }
  for (const spec of lacking.filter(({ method }) => method === "get")) {
    const create = routes.find((other) => other.method === "post" && other.path === spec.path);
    const write = create && (examples[create.operationId] ?? made[create.operationId]);
    if (write === undefined) continue;
    made[spec.operationId] = {
      status: spec.success.status,
      prepare: async () => {
        const request = await write.prepare();
        const response = await send(requestOf(request));
        if (response.status !== write.status) throw new Error(`${routeName(create!)}: ${response.status}`);
        return { auth: request.auth, method: "GET", path: spec.path };
      },
    };
  }
  return made;
}

/**
 * The example of a GET route that has none, below a GET route that has one (`/card_orders/{id}/summary`
 * below `/card_orders/{id}`): that route's request, on its preconditions, with the path the rest of the
 * way. A read of a resource's own needs no entry here; one that needs more (another scope, a parameter of
 * its own) fails its cases, and gets one.
 */
function readsBelow(
  routes: readonly RouteSpec[],
  examples: Record<string, Example>,
): Record<string, { parent: RouteSpec; example: Example }> {
  const below: Record<string, { parent: RouteSpec; example: Example }> = {};
  for (const spec of routes) {
    if (spec.method !== "get" || Object.hasOwn(examples, spec.operationId)) continue;
    const parent = routes
      .filter((other) => other.method === "get" && Object.hasOwn(examples, other.operationId))
      .filter((other) => spec.path.startsWith(`${other.path}/`) && !spec.path.slice(other.path.length).includes("{"))
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (parent === undefined) continue;
    const rest = spec.path.slice(parent.path.length);
    const { prepare } = examples[parent.operationId]!;
    below[spec.operationId] = {
      parent,
      example: {
        status: spec.success.status,
        prepare: async () => {
          const request = await prepare();
          return { ...request, path: request.path.split("?")[0] + rest };
        },
      },
    };
  }
  return below;
}

const described = (spec: RouteSpec) => `${routeName(spec)} (operationId ${spec.operationId})`;

/**
 * Every route of the route table that uses the database (all but the public ones: src/http/mount.ts),
 * in the table's order, with its example. Throws one error naming every such route without an example,
 * and every example that names no route of the table. `routes` and `examples`: another table (to test
 * this function), by default the app's.
 */
export function routeExamples(
  routes: readonly RouteSpec[] = ROUTES,
  examples: Record<string, Example> = EXAMPLES,
): RouteExample[] {
  const database = routes === ROUTES ? DATABASE_ROUTES : routes.filter((spec) => spec.access !== undefined);
  examples = { ...examples, ...onCollections(database, examples) };
  const below = readsBelow(database, examples);
  examples = { ...examples, ...Object.fromEntries(Object.entries(below).map(([id, { example }]) => [id, example])) };
  const missing = database.filter((spec) => !Object.hasOwn(examples, spec.operationId));
  const known = new Set(database.map((spec) => spec.operationId));
  const stale = Object.keys(examples).filter((operationId) => !known.has(operationId));
  const problems: string[] = [];
  if (missing.length > 0)
    problems.push(
      `${missing.length === 1 ? "A route" : `${missing.length} routes`} of the route table (src/app.ts) ` +
        `without an example: add one to EXAMPLES in ${EXAMPLES_FILE}, keyed by its operationId ` +
        `(one successful request on fresh preconditions):\n${missing.map((spec) => `  ${described(spec)}`).join("\n")}`,
    );
  if (stale.length > 0)
    problems.push(
      `Examples in ${EXAMPLES_FILE} for no route of the table that uses the database (remove them):\n` +
        stale.map((operationId) => `  ${operationId}`).join("\n"),
    );
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return database.map((spec) => ({
    spec,
    name: routeName(spec),
    operationId: spec.operationId,
    example: examples[spec.operationId]!,
    ...(below[spec.operationId] && { below: below[spec.operationId]!.parent }),
  }));
}
