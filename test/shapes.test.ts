import { beforeAll, describe, expect, it } from "vitest";
import type * as z from "zod/mini";
import { endpoints } from "../src/app";
import { components } from "../src/schemas/registry";
import { call, newBillingProfile, newCardOrder, newEntry, token, unique, type CallOptions } from "./support/api";
import { collectableInvoice, credit, earliestDate, statementFile } from "./support/payments";
import { routeExamples } from "./support/examples";
import { drainStatements } from "./support/queue";
import { runDunning } from "./support/dunning";
import { addDays } from "../src/domain/time";
import { deliveriesQueued, drainDeliveries, emailEvent, feedEmailEvents, RecordingEmail } from "./support/deliveries";
import { env } from "cloudflare:workers";
import type { Camt053Entry } from "./support/camt053-builder";
import { againstInterface, INTERFACE_FIELDS } from "./interface-fields";
import { defOf, everyOptionalSet, fieldsOf, routeOf } from "./support/shape";
import { CreateCardOrder } from "../src/schemas/card-order";

// One truth per resource shape (the house issue): the response schema. The serializers are typed
// by it and every success a test receives is held against it (support/shape.ts); this file proves
// the schemas say what the interface document says, and that the check saw every route answer and
// every resource in every state, with every nullable field both set and null. The resources are the
// route table's own: a new one is checked here without an edit of this file.

/** The schema a success schema carries in `data` (a list or one), if it has `data`. */
function resourceOf(schema: z.ZodMiniType): z.ZodMiniType | undefined {
  const data = defOf(schema).shape?.data;
  if (!data) return undefined;
  return defOf(data).type === "array" ? defOf(data).element! : data;
}

/** Every resource a route answers with, by its name among the OpenAPI components (src/schemas/registry.ts). */
const RESOURCES = new Map<z.ZodMiniType, string>(
  endpoints.flatMap(({ spec }) => {
    const resource = resourceOf(spec.success.schema);
    return resource ? [[resource, components.get(resource)?.id ?? `the unnamed data of ${spec.operationId}`]] : [];
  }),
);

const pascal = (key: string) => key.replace(/(?:^|_)(\w)/g, (_, letter: string) => letter.toUpperCase());
const snake = (id: string) => id.replace(/(?<=.)([A-Z])/g, "_$1").toLowerCase();

// An INTERFACE_FIELDS key names the resource whose component is its PascalCase (card_order_entry:
// CardOrderEntry), but for these.
const ALIASES: Record<string, string> = {
  // The interface's webhook endpoint is the one created, with its secret.
  webhook_endpoint: "NewWebhookEndpoint",
};
// Resources without an INTERFACE_FIELDS entry whose fields docs/api.md's tables do not give either, and
// why; any other resource without an entry is held to those tables. One given an entry there is checked
// all the same, so its line here may go then.
const WITHOUT_INTERFACE_FIELDS: Record<string, string> = {
  WebhookEndpoint: "as listed: the created one's fields (webhook_endpoint) without the secret (docs/api.md part 11)",
  NotificationDevice: "its fields (docs/api.md part 5, GET notification_tokens) are not copied there yet",
  DirectDebitCollection: "its fields (docs/api.md part 16, Collection) are not copied there yet",
};

const interfaceFields: Record<string, readonly string[]> = INTERFACE_FIELDS;
const byName = new Map([...RESOURCES].map(([schema, id]) => [id, schema]));
const named = (key: string) => ALIASES[key] ?? pascal(key);
const paired = new Set(Object.keys(interfaceFields).map(named));
/** Each INTERFACE_FIELDS key with its resource, then each resource without one (nor a reason) under the key it lacks. */
const FIELD_LISTS: (readonly [key: string, id: string, schema: z.ZodMiniType | undefined])[] = [
  ...Object.keys(interfaceFields).map((key) => [key, named(key), byName.get(named(key))] as const),
  ...[...byName]
    .filter(([id]) => !paired.has(id) && !(id in WITHOUT_INTERFACE_FIELDS))
    .map(([id, schema]) => [snake(id), id, schema] as const),
];

describe("the response schemas have the interface's fields, in its order", () => {
  // A resource the interface does not have (an endpoint's own shape) has no list: each of its fields is
  // one docs/api.md's tables document.
  it.each(FIELD_LISTS)("%s", (key, id, schema) => {
    const fields = interfaceFields[key] ?? [];
    expect(
      schema,
      `${key}: no route answers with a resource named ${id} among the OpenAPI components ` +
        "(src/schemas/registry.ts); if its component is named otherwise, give it in ALIASES in test/shapes.test.ts",
    ).toBeDefined();
    expect(
      againstInterface(fieldsOf(schema!), fields),
      `${key}: a field of ${id} beyond the interface's (test/interface-fields.ts) is in no table of docs/api.md`,
    ).toStrictEqual({ interface: fields, undocumented: [] });
  });
});

// Nullable in the interface document, but this service always sets them (docs/api.md part 1): the
// order's customer and payment method are required at creation; every invoice is booked with its
// amounts and recipient when it is made. For these, "never null" is what must hold.
// A billing profile's email is required since docs/api.md part 14 (null only on one stored before).
// Keyed by component name, as RESOURCES names them.
const ALWAYS_SET: Record<string, string[]> = {
  CardOrder: ["customer", "payment_method"],
  BillingProfile: ["email"],
  Invoice: ["booked_on", "gross_amount", "net_amount", "recipient"],
};

// Nullable fields no route can set yet, and why: the story checks they are null.
const NOT_YET_SET: Record<string, string[]> = {};

/** What the story below was answered: the routes that succeeded, and every resource body by schema. */
const seen = { routes: new Set<string>(), bodies: new Map<z.ZodMiniType, Record<string, unknown>[]>() };
/** The reads whose examples are those of the read above them (test/support/examples.ts `readsBelow`). */
const READS_BELOW = routeExamples().filter(({ below }) => below !== undefined);

/** A request of the story and what it answered; one that `mayFail` and fails is left unseen. */
async function request(path: string, options: CallOptions = {}, mayFail = false): Promise<any> {
  const response = await call(path, options);
  const method = options.method ?? (options.json === undefined ? "GET" : "POST");
  if (mayFail && response.status >= 300) return undefined;
  expect({ method, path, status: response.status }).toMatchObject({ status: expect.any(Number) });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  const spec = routeOf(method, new URL(path, "https://x").pathname)!;
  seen.routes.add(spec.operationId);
  if (response.status === 204 || spec.success.mediaType) return undefined;
  const body = await response.json();
  const resource = resourceOf(spec.success.schema);
  if (resource) {
    const shown = [(body as { data: unknown }).data].flat() as Record<string, unknown>[];
    seen.bodies.set(resource, [...(seen.bodies.get(resource) ?? []), ...shown]);
    // A read below a read of this resource whose example is that read's (`/card_orders/{id}/summary`) is
    // asked of each one shown, as it is now: its body shows every state this resource's bodies show.
    for (const { spec: below } of READS_BELOW.filter((read) => resourceOf(read.below!.success.schema) === resource))
      for (const { id } of shown) await request(below.path.replace("{id}", String(id)), { token: options.token });
  }
  return body;
}

/** A customer's life through every route: each resource in every state, nullable fields set and not. */
async function story() {
  const auth = await token({ customer_id: unique("customer") });
  const owner = await token({ sub: unique("owner") });
  const post = (path: string, json?: unknown) => request(path, { token: auth, method: "POST", json });
  const order = async (fields: object) => (await post("/card_orders", { ...newCardOrder, ...fields })).data[0];
  /** An open invoice of a fresh order of one entry. */
  const payable = async () => {
    const { id } = await order({});
    await post(`/card_orders/${id}/entries`, newEntry);
    await post(`/card_orders/${id}/submit`);
    return (await post("/invoices", { order_id: id })).data[0];
  };
  /** A money string plus `extra` cents. */
  const cents = (amount: string, extra: number) => {
    const total = Math.round(Number(amount) * 100) + extra;
    return `${Math.floor(total / 100)}.${String(total % 100).padStart(2, "0")}`;
  };
  const profile = "/customers/me/billing_profile";
  // The required fields alone (the others null), then every field.
  const { legal_name, street, postcode, city, country_code, email } = newBillingProfile;
  const required = { legal_name, street, postcode, city, country_code, email };
  await request(profile, { token: auth, method: "PUT", json: required });
  await request(profile, { token: auth });
  // A Swiss account needs its BIC.
  const swiss = { direct_debit_iban: "CH9300762011623852957", direct_debit_bic: "UBSWCHZH80A" };
  await request(profile, { token: auth, method: "PUT", json: { ...newBillingProfile, ...swiss } });
  await request(profile, { token: auth, method: "PUT", json: newBillingProfile });

  const full = await order({ ...everyOptionalSet(CreateCardOrder), payment_method: "direct_debit" });
  const bare = await order({ description: null });
  const withdrawn = await order({});
  for (const { id } of [full, bare, withdrawn]) await post(`/card_orders/${id}/entries`, newEntry);
  const extra = (await post(`/card_orders/${full.id}/entries`, { ...newEntry, amount: "10.00" })).data[0];
  await request(`/card_orders/${full.id}/entries`, { token: auth });
  await request(`/card_orders/${full.id}/entries/${extra.id}`, { token: auth, method: "DELETE" });
  await request("/card_orders", { token: auth });
  await request("/card_orders?state=draft", { token: auth });

  await post(`/card_orders/${full.id}/submit`);
  await post(`/card_orders/${bare.id}/submit`);
  const voucher = (await post("/invoices", { order_id: full.id, reference: "R-1" })).data[0];
  const bareVoucher = (await post("/invoices", { order_id: bare.id })).data[0];
  await post(`/card_orders/${bare.id}/cancel`); // cancels its open invoice too
  await post(`/card_orders/${withdrawn.id}/cancel`);
  const producing = (await post(`/card_orders/${full.id}/start_production`)).data;
  await post(`/invoices/${voucher.id}/pay`);
  await post(`/invoices/${producing.production_invoice.id}/cancel`);
  const shipping = (await post(`/card_orders/${full.id}/deliver`)).data.shipping_invoice.id;
  await request(`/card_orders/${full.id}`, { token: auth });
  await request(`/card_orders/${bare.id}`, { token: auth });
  await request("/invoices", { token: auth });
  await request(`/invoices?order_id=${full.id}`, { token: auth });
  await request(`/invoices/${bareVoucher.id}`, { token: auth });
  await request(`/invoices/${voucher.id}`, { token: auth });
  await request(`/invoices/${voucher.id}/lines`, { token: auth });
  await request(`/invoices/${producing.production_invoice.id}/lines`, { token: auth });
  await request(`/invoices/${voucher.id}/document`, { token: auth });
  await request(`/invoices/${bareVoucher.id}/credit_note?format=cii`, { token: auth });

  const hook = (await post("/webhook_endpoints", { url: "https://hooks.example/in", event_types: ["*"] })).data[0];
  await request("/webhook_endpoints", { token: auth });
  await request(`/webhook_endpoints/${hook.id}`, { token: auth, method: "DELETE" });
  await request("/events", { token: auth });

  // Getting paid (docs/api.md part 15): the back office uploads statements, the jobs Worker reads and
  // matches them; each transaction state (overpaid, unmatched, ignored, matched), one allocated by hand,
  // a statement that fails, dates and references both present and not.
  const office = await token({ customer_id: undefined, scope: "payments:read payments:write" });
  const [x, y] = [await payable(), await payable()];
  const { payment_reference } = (await request(`/invoices/${x.id}/balance`, { token: auth })).data;
  const upload = async (file: string) =>
    (
      await request("/bank_statements", {
        token: office,
        method: "POST",
        body: file,
        headers: { "Content-Type": "application/xml" },
      })
    ).data[0];
  const statement = await upload(
    statementFile([
      credit(cents(x.gross_amount, 500), {
        structuredReference: payment_reference,
        debtorName: "Müller & Söhne",
        debtorIban: "DE89370400440532013000",
      }),
      credit("3.00", { unstructured: ["thanks"] }),
      { ...credit("1.50"), creditDebit: "debit" },
      { amount: "4.00", creditDebit: "credit", status: "PDNG", details: [{}] },
      credit(y.gross_amount, { endToEndId: y.number }),
    ]),
  );
  const failing = await upload(statementFile([credit("1.005")], "camt.053.001.02", null));
  await drainStatements();
  await request(`/bank_statements/${statement.id}`, { token: office });
  await request(`/bank_statements/${failing.id}`, { token: office });
  await request("/bank_statements", { token: office });
  const transactions = (await request(`/bank_transactions?bank_statement_id=${statement.id}`, { token: office })).data;
  await request("/bank_transactions?state=unmatched", { token: office });
  const unmatched = transactions.find((t: { state: string }) => t.state === "unmatched");
  await request(`/bank_transactions/${unmatched.id}`, { token: office });
  await post(`/bank_transactions/${unmatched.id}/allocations`, { invoice_id: shipping, amount: "3.00" });
  await request(`/bank_transactions/${unmatched.id}`, { token: office });
  await request(`/invoices/${x.id}/payments`, { token: auth });
  await request(`/invoices/${voucher.id}/payments`, { token: auth });
  await request(`/invoices/${x.id}/balance`, { token: auth });

  // Direct debit (docs/api.md part 16): a collection made, its file fetched, settled by a statement, the
  // debit returned (the payment then shows its return).
  const debited = await collectableInvoice(auth);
  const made = (
    await request("/direct_debit_collections", {
      token: office,
      method: "POST",
      json: { collection_date: earliestDate() },
    })
  ).data[0];
  await request("/direct_debit_collections", { token: office });
  await request(`/direct_debit_collections/${made.id}/document`, { token: office });
  const settle = (entry: Camt053Entry) => upload(statementFile([entry]));
  await settle(credit(debited.gross_amount, { endToEndId: debited.number }));
  await drainStatements();
  await request(`/direct_debit_collections/${made.id}`, { token: office });
  await settle({
    ...credit(debited.gross_amount, { endToEndId: debited.number, returnReason: "AM04" }),
    creditDebit: "debit",
  });
  await drainStatements();
  await request(`/invoices/${debited.id}/payments`, { token: auth });

  // Document e-mails (docs/api.md part 17): a profile with a format of its own that delivers none (its
  // invoice's delivery skipped), then the jobs Worker sends the pending ones (one refused for good), and
  // Email Service reports one delivered and one bounced.
  await request(profile, {
    token: auth,
    method: "PUT",
    json: { ...newBillingProfile, invoice_format: "cii", invoice_delivery: "none" },
  });
  const quiet = await payable();
  await request(profile, { token: auth, method: "PUT", json: newBillingProfile });
  const mailed = [await payable(), await payable(), await payable()];
  await request(`/invoices/${mailed[0]!.id}/deliveries`, { token: auth });
  const { results: pending } = await env.DB.prepare(
    "SELECT id FROM invoice_deliveries WHERE invoice_id IN (?, ?, ?) AND state = 'pending' ORDER BY created_at",
  )
    .bind(...mailed.map(({ id }) => id))
    .all<{ id: string }>();
  deliveriesQueued.take();
  deliveriesQueued.messages.push(...pending.map(({ id }) => ({ deliveryId: id })));
  await drainDeliveries({ EMAIL: new RecordingEmail().failWith("E_RECIPIENT_SUPPRESSED").binding });
  const sentOnes = await Promise.all(
    mailed.map(async ({ id }) => (await request(`/invoices/${id}/deliveries`, { token: auth })).data[0]),
  );
  const [first, second] = sentOnes.filter((d: { state: string }) => d.state === "sent");
  await feedEmailEvents([emailEvent("delivered", first.message_id), emailEvent("rejected", second.message_id)]);
  for (const { id } of [quiet, ...mailed]) await request(`/invoices/${id}/deliveries`, { token: auth });
  await request(`/invoice_deliveries?state=delivered`, { token: office });

  // docs/api.md part 18: one invoice chased through its levels to the end (its reminder e-mailed), one
  // held, one paid; each dunning read on the way.
  const chased = await payable();
  const held = await payable();
  const paid = await payable();
  const dunningOf = (id: string) => request(`/invoices/${id}/dunning`, { token: auth });
  await dunningOf(chased.id);
  await runDunning(addDays(chased.due_on, 1));
  await dunningOf(chased.id);
  await runDunning(addDays(chased.due_on, 7));
  await request(`/invoices/${chased.id}/dunning`, {
    token: office,
    method: "PUT",
    json: { hold: true, reason: "Disputed: two cards missing." },
  });
  await dunningOf(chased.id);
  await request(`/invoices/${chased.id}/dunning`, { token: office, method: "PUT", json: { hold: false } });
  for (const days of [21, 35, 49]) await runDunning(addDays(chased.due_on, days));
  await dunningOf(chased.id);
  const { data: reminders } = await request(`/invoices/${chased.id}/reminders`, { token: auth });
  await request(`/reminders/${reminders[0].id}/document`, { token: auth });
  await request(`/invoices/${chased.id}/deliveries`, { token: auth });
  await request(`/invoices/${held.id}/dunning`, {
    token: office,
    method: "PUT",
    json: { hold: true, reason: "Disputed." },
  });
  await post(`/invoices/${paid.id}/pay`);
  await dunningOf(paid.id);
  deliveriesQueued.take();

  const tokens = "/voucher_owners/me/notification_tokens";
  await request(tokens, { token: owner, method: "PUT", json: { value: unique("v"), device_identifier: "phone" } });
  await request(tokens, { token: owner });
  await request(`${tokens}/phone`, { token: owner, method: "DELETE" });
  for (const path of ["/", "/health", "/openapi.json", "/docs"]) await request(path);
  // A route the story does not tell (a new one, say) answers its example (test/support/examples.ts):
  // its body is checked too. The story is for what examples do not show: every state, every null.
  // A JSON body is sent as the example has it, then with every optional field set (everyOptionalSet) and
  // with each left out, so that each is seen both set and null; a body those values do not fit (a field of
  // a format) is left unseen, and the check below names what it leaves never set.
  for (const { spec, operationId, example } of routeExamples())
    if (!seen.routes.has(operationId)) {
      const { method, path, auth, json, file } = await example.prepare();
      const headers = file ? { "Content-Type": file.contentType } : undefined;
      await request(path, { method, token: auth, json, body: file?.content, headers });
      const optional = json === undefined ? {} : everyOptionalSet(spec.body);
      const optionals = Object.keys(optional);
      if (optionals.length > 0)
        for (const fields of [optional, {}]) {
          const again = await example.prepare();
          const required = Object.entries(again.json ?? {}).filter(([key]) => !optionals.includes(key));
          await request(
            again.path,
            { method, token: again.auth, json: { ...Object.fromEntries(required), ...fields } },
            true,
          );
        }
    }
}

describe("every route and every resource shape, on real rows", () => {
  beforeAll(story, 60_000);

  it("saw every route of the app answer its success, in the story or by its example (and so checked its body)", () => {
    expect(endpoints.map(({ spec }) => spec.operationId).filter((id) => !seen.routes.has(id))).toStrictEqual([]);
  });

  it.each([...byName])("saw every %s state, and each nullable field both null and set", (name, schema) => {
    const bodies = seen.bodies.get(schema) ?? [];
    expect(bodies.length, `${name} bodies`).toBeGreaterThan(0);
    const gaps: string[] = [];
    for (const [field, fieldSchema] of Object.entries(defOf(schema).shape!)) {
      const values = bodies.map((body) => body[field]);
      if (defOf(fieldSchema).type === "nullable") {
        const alwaysSet = ALWAYS_SET[name]?.includes(field);
        if (alwaysSet ? values.includes(null) : !values.includes(null))
          gaps.push(`${field} ${alwaysSet ? "null" : "never null"}`);
        if (NOT_YET_SET[name]?.includes(field)) {
          if (values.some((value) => value !== null)) gaps.push(`${field} set: take it off NOT_YET_SET`);
        } else if (!values.some((value) => value !== null)) gaps.push(`${field} never set`);
      }
      if (field === "state") {
        const states = Object.values(defOf(fieldSchema).entries!);
        for (const state of states) if (!values.includes(state)) gaps.push(`state ${state} never seen`);
      }
    }
    expect(
      gaps,
      `${name}: make the story in test/shapes.test.ts show each (a field the service always sets: ALWAYS_SET)`,
    ).toStrictEqual([]);
  });
});
