import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Scope } from "../src/auth/principal";
import { SCOPES } from "./interface-fields";
import {
  call,
  type CARD_ORDER_PATHS,
  createCardOrder,
  createInvoice,
  expectError,
  expectJson,
  ISO_MS,
  orderIn,
  token,
  UUID,
  post,
} from "./support/api";

async function get(path: string, auth: string): Promise<any> {
  const response = await call(path, { token: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as any).data;
}

/** Runs a transition that must succeed and returns the resource it answered. */
async function transition(auth: string, path: string): Promise<any> {
  const response = await post(path, auth);
  expect({ path, status: response.status }).toStrictEqual({ path, status: 200 });
  return ((await response.json()) as any).data;
}

type CardOrderState = keyof typeof CARD_ORDER_PATHS;

const cardOrderIn = (auth: string, state: CardOrderState) => orderIn(auth, state);

async function invoiceIn(auth: string, state: "open" | "paid" | "cancelled"): Promise<any> {
  const invoice = await createInvoice(auth, (await orderIn(auth, "submitted")).id);
  if (state === "open") return invoice;
  return transition(auth, `/invoices/${invoice.id}/${state === "paid" ? "pay" : "cancel"}`);
}

const after = (earlier: string, later: string) =>
  expect(Date.parse(later), `${later} after ${earlier}`).toBeGreaterThan(Date.parse(earlier));

/** The stamp a transition sets: a millisecond timestamp after the previous change, at most the new updated_at. */
function expectStamp(stamp: string, previousUpdate: string, updatedAt: string) {
  expect(stamp).toMatch(ISO_MS);
  after(previousUpdate, stamp);
  expect(Date.parse(stamp)).toBeLessThanOrEqual(Date.parse(updatedAt));
}

const sequenceOf = (number: string, series: string): number => {
  const match = new RegExp(`^${series}-(\\d{4})-(\\d{6,})$`).exec(number);
  expect(match, `${number} is not a ${series} number`).not.toBeNull();
  return Number(match![2]);
};

describe("card order transitions", () => {
  it("submit: draft → submitted, sets submitted_at, still cancellable", async () => {
    const auth = await token();
    const draft = await orderIn(auth, "draft");
    const response = await post(`/card_orders/${draft.id}/submit`, auth);
    const { data } = await expectJson(response, 200, {
      data: {
        ...draft,
        state: "submitted",
        state_label: "Submitted",
        updated_at: expect.stringMatching(ISO_MS),
        submitted_at: expect.stringMatching(ISO_MS),
        is_cancellable: true,
      },
    });
    after(draft.updated_at, data.updated_at);
    expectStamp(data.submitted_at, draft.updated_at, data.updated_at);
    await expectJson(await call(`/card_orders/${draft.id}`, { token: auth }), 200, { data });
  });

  it("start_production: submitted → in_production, sets production_started_at, keeps submitted_at", async () => {
    const auth = await token();
    const submitted = await cardOrderIn(auth, "submitted");
    const response = await post(`/card_orders/${submitted.id}/start_production`, auth);
    const { data } = await expectJson(response, 200, {
      data: {
        ...submitted,
        state: "in_production",
        state_label: "In production",
        updated_at: expect.stringMatching(ISO_MS),
        production_started_at: expect.stringMatching(ISO_MS),
        is_cancellable: false,
        production_invoice: {
          id: expect.stringMatching(UUID),
          type: "invoice",
          number: expect.stringMatching(/^INV-\d{4}-\d{6}$/),
        },
      },
    });
    after(submitted.updated_at, data.updated_at);
    expectStamp(data.production_started_at, submitted.updated_at, data.updated_at);
    await expectJson(await call(`/card_orders/${submitted.id}`, { token: auth }), 200, { data });
  });

  it("deliver: in_production → delivered, sets delivered_at, keeps the earlier timestamps", async () => {
    const auth = await token();
    const producing = await cardOrderIn(auth, "in_production");
    const response = await post(`/card_orders/${producing.id}/deliver`, auth);
    const { data } = await expectJson(response, 200, {
      data: {
        ...producing,
        state: "delivered",
        state_label: "Delivered",
        updated_at: expect.stringMatching(ISO_MS),
        delivered_at: expect.stringMatching(ISO_MS),
        is_cancellable: false,
        shipping_invoice: {
          id: expect.stringMatching(UUID),
          type: "invoice",
          number: expect.stringMatching(/^INV-\d{4}-\d{6}$/),
        },
      },
    });
    after(producing.updated_at, data.updated_at);
    expectStamp(data.delivered_at, producing.updated_at, data.updated_at);
    expect(data.submitted_at).toBe(producing.submitted_at);
    expect(data.production_started_at).toBe(producing.production_started_at);
    await expectJson(await call(`/card_orders/${producing.id}`, { token: auth }), 200, { data });
  });

  it("cancel: draft → cancelled, no longer cancellable", async () => {
    const auth = await token();
    const draft = await createCardOrder(auth);
    const response = await post(`/card_orders/${draft.id}/cancel`, auth);
    const { data } = await expectJson(response, 200, {
      data: {
        ...draft,
        state: "cancelled",
        state_label: "Cancelled",
        updated_at: expect.stringMatching(ISO_MS),
        is_cancellable: false,
      },
    });
    after(draft.updated_at, data.updated_at);
    await expectJson(await call(`/card_orders/${draft.id}`, { token: auth }), 200, { data });
  });

  it("cancel: submitted → cancelled keeps submitted_at", async () => {
    const auth = await token();
    const submitted = await cardOrderIn(auth, "submitted");
    expect(submitted.submitted_at).toMatch(ISO_MS);
    const response = await post(`/card_orders/${submitted.id}/cancel`, auth);
    const { data } = await expectJson(response, 200, {
      data: {
        ...submitted,
        state: "cancelled",
        state_label: "Cancelled",
        updated_at: expect.stringMatching(ISO_MS),
        is_cancellable: false,
      },
    });
    after(submitted.updated_at, data.updated_at);
    await expectJson(await call(`/card_orders/${submitted.id}`, { token: auth }), 200, { data });
  });

  it("lets exactly one of two racing transitions win, and stores what the winner answered", async () => {
    const auth = await token();
    const order = await cardOrderIn(auth, "submitted");
    const [start, cancel] = await Promise.all([
      post(`/card_orders/${order.id}/start_production`, auth),
      post(`/card_orders/${order.id}/cancel`, auth),
    ]);
    expect([start.status, cancel.status].toSorted()).toStrictEqual([200, 409]);
    const winner = ((await (start.status === 200 ? start : cancel).json()) as any).data;
    expect(["in_production", "cancelled"]).toContain(winner.state);
    expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(winner);
  }, 60_000);

  it("refuses to submit an empty draft: 409 invalid_state saying why, and it stays a draft", async () => {
    const auth = await token();
    const draft = await createCardOrder(auth);
    const body = await expectError(await post(`/card_orders/${draft.id}/submit`, auth), 409, { code: "invalid_state" });
    expect(body.errors[0].detail).toMatch(/no entries/);
    await expectJson(await call(`/card_orders/${draft.id}`, { token: auth }), 200, { data: draft });
  });

  it("keeps the invoice link through every transition", async () => {
    const auth = await token();
    const order = await cardOrderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    const link = { id: invoice.id, type: "invoice", number: invoice.number };
    for (const action of ["start_production", "deliver"]) {
      expect((await transition(auth, `/card_orders/${order.id}/${action}`)).invoice).toStrictEqual(link);
    }
    expect((await get(`/card_orders/${order.id}`, auth)).invoice).toStrictEqual(link);
  });

  it("answers 404 for another customer's order and leaves it unchanged", async () => {
    const owner = await token();
    const order = await createCardOrder(owner);
    const other = await token();
    for (const action of Object.keys({ submit: 1, cancel: 1, start_production: 1, deliver: 1 })) {
      await expectError(await post(`/card_orders/${order.id}/${action}`, other), 404, { code: "not_found" });
    }
    await expectJson(await call(`/card_orders/${order.id}`, { token: owner }), 200, { data: order });
  });
});

describe("invoice transitions", () => {
  it("pay: open → paid, sets paid_at; the cancellation number stays empty", async () => {
    const auth = await token();
    const open = await invoiceIn(auth, "open");
    const response = await post(`/invoices/${open.id}/pay`, auth);
    const { data } = await expectJson(response, 200, {
      data: {
        ...open,
        state: "paid",
        updated_at: expect.stringMatching(ISO_MS),
        paid_at: expect.stringMatching(ISO_MS),
      },
    });
    expect(data.cancellation_number).toBe("");
    after(open.updated_at, data.updated_at);
    expectStamp(data.paid_at, open.updated_at, data.updated_at);
    await expectJson(await call(`/invoices/${open.id}`, { token: auth }), 200, { data });
  });

  it("cancel: open → cancelled, sets cancelled_at and a CN number of the same UTC year", async () => {
    const auth = await token();
    const open = await invoiceIn(auth, "open");
    const response = await post(`/invoices/${open.id}/cancel`, auth);
    const { data } = await expectJson(response, 200, {
      data: {
        ...open,
        state: "cancelled",
        updated_at: expect.stringMatching(ISO_MS),
        cancellation_number: expect.stringMatching(/^CN-\d{4}-\d{6}$/),
        cancelled_at: expect.stringMatching(ISO_MS),
      },
    });
    after(open.updated_at, data.updated_at);
    expectStamp(data.cancelled_at, open.updated_at, data.updated_at);
    expect(data.cancellation_number.slice(3, 7)).toBe(data.cancelled_at.slice(0, 4));
    await expectJson(await call(`/invoices/${open.id}`, { token: auth }), 200, { data });
    const { results } = await env.DB.prepare(
      "SELECT state, cancellation_number, cancelled_at FROM invoices WHERE id = ?",
    )
      .bind(open.id)
      .all();
    expect(results).toStrictEqual([
      { state: "cancelled", cancellation_number: data.cancellation_number, cancelled_at: data.cancelled_at },
    ]);
  });

  it("numbers cancellations in their own gapless sequence across customers, skipping none for refusals", async () => {
    const a = await token();
    const b = await token();
    const first = await transition(a, `/invoices/${(await invoiceIn(a, "open")).id}/cancel`);
    const paid = await invoiceIn(a, "paid");
    await expectError(await post(`/invoices/${paid.id}/cancel`, a), 409, { code: "invalid_state" });
    await expectError(await post(`/invoices/${first.id}/cancel`, a), 409, { code: "invalid_state" });
    const second = await transition(b, `/invoices/${(await invoiceIn(b, "open")).id}/cancel`);

    // Two invoices were created between the cancellations: they took INV numbers, not CN numbers.
    expect(sequenceOf(second.cancellation_number, "CN")).toBe(sequenceOf(first.cancellation_number, "CN") + 1);
  });

  it("gives 10 invoices cancelled at once 10 distinct, consecutive CN numbers", async () => {
    const auth = await token();
    const before = await transition(auth, `/invoices/${(await invoiceIn(auth, "open")).id}/cancel`);
    const open = [];
    for (let i = 0; i < 10; i++) open.push(await invoiceIn(auth, "open"));

    const responses = await Promise.all(open.map((invoice) => post(`/invoices/${invoice.id}/cancel`, auth)));
    expect(responses.map((r) => r.status)).toStrictEqual(Array(10).fill(200));
    const cancelled = await Promise.all(responses.map(async (r) => ((await r.json()) as any).data));
    const start = sequenceOf(before.cancellation_number, "CN") + 1;
    expect(cancelled.map((i) => sequenceOf(i.cancellation_number, "CN")).toSorted((a, b) => a - b)).toStrictEqual(
      Array.from({ length: 10 }, (_, i) => start + i),
    );
    for (const invoice of cancelled) expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual(invoice);
  }, 60_000);

  it("lets exactly one of pay and cancel win when they race, and takes a CN number only if cancel won", async () => {
    const auth = await token();
    const marker = await transition(auth, `/invoices/${(await invoiceIn(auth, "open")).id}/cancel`);
    const invoice = await invoiceIn(auth, "open");

    const [pay, cancel] = await Promise.all([
      post(`/invoices/${invoice.id}/pay`, auth),
      post(`/invoices/${invoice.id}/cancel`, auth),
    ]);
    expect([pay.status, cancel.status].toSorted()).toStrictEqual([200, 409]);
    const loser = pay.status === 409 ? pay : cancel;
    const code = ((await loser.clone().json()) as any).errors[0].code;
    expect(["invalid_state", "conflict"]).toContain(code);
    await expectError(loser, 409, { code });

    const winner = ((await (pay.status === 200 ? pay : cancel).json()) as any).data;
    expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual(winner);
    const next = await transition(auth, `/invoices/${(await invoiceIn(auth, "open")).id}/cancel`);
    const taken = winner.state === "cancelled" ? 1 : 0;
    if (taken)
      expect(sequenceOf(winner.cancellation_number, "CN")).toBe(sequenceOf(marker.cancellation_number, "CN") + 1);
    else expect(winner).toMatchObject({ state: "paid", cancellation_number: "", cancelled_at: null });
    expect(sequenceOf(next.cancellation_number, "CN")).toBe(sequenceOf(marker.cancellation_number, "CN") + 1 + taken);
  }, 60_000);

  it("keeps the linked order untouched when the invoice is paid or cancelled", async () => {
    const auth = await token();
    const order = await cardOrderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    const linked = await get(`/card_orders/${order.id}`, auth);
    await transition(auth, `/invoices/${invoice.id}/pay`);
    expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(linked);
  });

  it("answers 404 for another customer's invoice and leaves it unchanged", async () => {
    const owner = await token();
    const invoice = await invoiceIn(owner, "open");
    const other = await token();
    for (const action of ["pay", "cancel"]) {
      await expectError(await post(`/invoices/${invoice.id}/${action}`, other), 404, { code: "not_found" });
    }
    await expectJson(await call(`/invoices/${invoice.id}`, { token: owner }), 200, { data: invoice });
  });
});

describe("transitions not allowed from the current state", () => {
  const CARD_ORDER_ACTIONS = ["submit", "cancel", "start_production", "deliver"] as const;
  const ALLOWED: Record<CardOrderState, readonly string[]> = {
    draft: ["submit", "cancel"],
    submitted: ["cancel", "start_production"],
    in_production: ["deliver"],
    delivered: [],
    cancelled: [],
  };
  const cardOrderCases = (Object.keys(ALLOWED) as CardOrderState[]).flatMap((state) =>
    CARD_ORDER_ACTIONS.filter((action) => !ALLOWED[state].includes(action)).map((action) => [state, action] as const),
  );

  it("covers every refused pair of the card order lifecycle: 5 states × 4 actions, 5 of them allowed", () => {
    expect(cardOrderCases).toHaveLength(15);
  });

  it.each(cardOrderCases)("card order %s: %s answers 409 invalid_state and changes nothing", async (state, action) => {
    const auth = await token();
    const order = await cardOrderIn(auth, state);
    const before = await get(`/card_orders/${order.id}`, auth);
    const stored = await env.DB.prepare("SELECT * FROM card_orders WHERE id = ?").bind(order.id).first();

    await expectError(await post(`/card_orders/${order.id}/${action}`, auth), 409, { code: "invalid_state" });

    expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(before);
    expect(await env.DB.prepare("SELECT * FROM card_orders WHERE id = ?").bind(order.id).first()).toStrictEqual(stored);
  });

  const invoiceCases = [
    ["paid", "pay"],
    ["paid", "cancel"],
    ["cancelled", "pay"],
    ["cancelled", "cancel"],
  ] as const;

  it.each(invoiceCases)("invoice %s: %s answers 409 invalid_state and changes nothing", async (state, action) => {
    const auth = await token();
    const invoice = await invoiceIn(auth, state);
    const before = await get(`/invoices/${invoice.id}`, auth);
    const stored = await env.DB.prepare("SELECT * FROM invoices WHERE id = ?").bind(invoice.id).first();

    await expectError(await post(`/invoices/${invoice.id}/${action}`, auth), 409, { code: "invalid_state" });

    expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual(before);
    expect(await env.DB.prepare("SELECT * FROM invoices WHERE id = ?").bind(invoice.id).first()).toStrictEqual(stored);
  });

  it("an open invoice allows both pay and cancel (the only state with transitions)", async () => {
    const auth = await token();
    expect((await transition(auth, `/invoices/${(await invoiceIn(auth, "open")).id}/pay`)).state).toBe("paid");
    expect((await transition(auth, `/invoices/${(await invoiceIn(auth, "open")).id}/cancel`)).state).toBe("cancelled");
  });

  it("a second identical transition is refused rather than repeated: submitted_at is not moved", async () => {
    const auth = await token();
    const submitted = await cardOrderIn(auth, "submitted");
    await expectError(await post(`/card_orders/${submitted.id}/submit`, auth), 409, { code: "invalid_state" });
    expect(await get(`/card_orders/${submitted.id}`, auth)).toStrictEqual(submitted);
  });
});

describe("scopes", () => {
  const id = "00000000-0000-4000-8000-000000000000";
  const SCOPED_ROUTES: [method: string, path: string, scope: Scope, json?: unknown][] = [
    ["POST", "/card_orders", "card_orders:write", { voucher_category: "mixed", payment_method: "bank_transfer" }],
    ["GET", "/card_orders", "card_orders:read"],
    ["GET", `/card_orders/${id}`, "card_orders:read"],
    ["POST", `/card_orders/${id}/submit`, "card_orders:write"],
    ["POST", `/card_orders/${id}/cancel`, "card_orders:write"],
    ["POST", `/card_orders/${id}/start_production`, "fulfilment"],
    ["POST", `/card_orders/${id}/deliver`, "fulfilment"],
    ["POST", "/invoices", "invoices:write", { order_id: id }],
    ["GET", "/invoices", "invoices:read"],
    ["GET", `/invoices/${id}`, "invoices:read"],
    ["POST", `/invoices/${id}/pay`, "fulfilment"],
    ["POST", `/invoices/${id}/cancel`, "fulfilment"],
    [
      "PUT",
      "/voucher_owners/me/notification_tokens",
      "notification_tokens:write",
      { value: "v", device_identifier: "d" },
    ],
    ["GET", "/voucher_owners/me/notification_tokens", "notification_tokens:write"],
    ["DELETE", "/voucher_owners/me/notification_tokens/phone", "notification_tokens:write"],
  ];

  it.each(SCOPED_ROUTES)("%s %s without %s answers 403 before any lookup", async (method, path, scope, json) => {
    const auth = await token({ scope: SCOPES.filter((s) => s !== scope).join(" ") });
    const response = await call(path, { method, token: auth, json });
    await expectError(response, 403, { code: "forbidden", source: { header: "Authorization" } });
    const challenge = response.headers.get("WWW-Authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer\b/);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain(`scope="${scope}"`);
  });

  it.each(SCOPED_ROUTES)("%s %s with only %s gets past the scope check", async (method, path, scope, json) => {
    const response = await call(path, { method, token: await token({ scope }), json });
    expect(response.status).not.toBe(403);
  });

  it("answers 403 to a token without a scope claim", async () => {
    const response = await call("/card_orders", { token: await token({ scope: undefined }) });
    await expectError(response, 403, { code: "forbidden", source: { header: "Authorization" } });
  });

  it("changes nothing when the fulfilment scope is missing on a real order and invoice", async () => {
    const auth = await token();
    const order = await cardOrderIn(auth, "in_production");
    const invoice = await createInvoice(auth, order.id);
    const customer = (await get(`/card_orders/${order.id}`, auth)).customer;
    const noFulfilment = await token({
      customer_id: customer,
      scope: SCOPES.filter((s) => s !== "fulfilment").join(" "),
    });

    for (const path of [
      `/card_orders/${order.id}/deliver`,
      `/invoices/${invoice.id}/pay`,
      `/invoices/${invoice.id}/cancel`,
    ]) {
      await expectError(await post(path, noFulfilment), 403, {
        code: "forbidden",
        source: { header: "Authorization" },
      });
    }
    expect((await get(`/card_orders/${order.id}`, auth)).state).toBe("in_production");
    expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual(invoice);
  });

  const TENANT_ROUTES = SCOPED_ROUTES.filter(([, path]) => !path.startsWith("/voucher_owners"));
  // Every scope but payments:read, with which a token without customer_id reads every customer's invoices
  // (docs/api.md part 18): without it, it is no customer's and no back office's.
  const noBackOffice = SCOPES.filter((s) => s !== "payments:read").join(" ");

  it.each(TENANT_ROUTES)("%s %s answers 403 to a token without customer_id", async (method, path, _scope, json) => {
    const response = await call(path, {
      method,
      token: await token({ customer_id: undefined, scope: noBackOffice }),
      json,
    });
    await expectError(response, 403, { code: "forbidden", source: { header: "Authorization" } });
  });

  it("refuses an empty customer_id as no customer", async () => {
    await expectError(await call("/invoices", { token: await token({ customer_id: "", scope: noBackOffice }) }), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
  });
});

describe("transition paths", () => {
  const existing = async () => {
    const auth = await token();
    const order = await cardOrderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    return { auth, order: await get(`/card_orders/${order.id}`, auth), invoice };
  };

  it.each(["GET", "PUT", "PATCH", "DELETE"])(
    "%s on a transition path answers 405 with Allow: POST, whether or not the id exists",
    async (method) => {
      const { auth, order, invoice } = await existing();
      const paths = [
        ...["submit", "cancel", "start_production", "deliver"].flatMap((a) => [
          `/card_orders/${order.id}/${a}`,
          `/card_orders/${crypto.randomUUID()}/${a}`,
        ]),
        ...["pay", "cancel"].flatMap((a) => [`/invoices/${invoice.id}/${a}`, `/invoices/${crypto.randomUUID()}/${a}`]),
      ];
      for (const path of paths) {
        const response = await call(path, { method, token: auth });
        await expectError(response, 405, { code: "method_not_allowed" });
        expect(response.headers.get("Allow")).toBe("POST");
      }
      expect(await get(`/card_orders/${order.id}`, auth)).toStrictEqual(order);
      expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual(invoice);
    },
  );

  it.each([
    ["POST", "/card_orders/{order}/ship"],
    ["POST", "/card_orders/{order}/Submit"],
    ["POST", "/card_orders/{order}/pay"],
    ["POST", "/card_orders/{order}/submit/now"],
    ["POST", "/invoices/{invoice}/refund"],
    ["POST", "/invoices/{invoice}/submit"],
  ])("%s %s (an unknown action) answers 404", async (method, template) => {
    const { auth, order, invoice } = await existing();
    const path = template.replace("{order}", order.id).replace("{invoice}", invoice.id);
    await expectError(await call(path, { method, token: auth }), 404, { code: "not_found" });
    expect(await get(`/invoices/${invoice.id}`, auth)).toStrictEqual(invoice);
  });
});
