import createClient from "openapi-fetch";
import { describe, expect, it } from "vitest";
import { BASE, send, token, unique } from "./support/api";
import type { components, paths } from "./support/openapi";

// A client generated from /openapi.json (npm run client:types writes ./support/openapi.d.ts) runs
// the README's flow against the Worker. A route change that breaks generated clients breaks this
// file: its types under `tsc --noEmit`, or its requests here.
describe("a client generated from the OpenAPI document", () => {
  it("creates, lists, fills, submits and invoices a card order, pays the invoice and registers a device", async () => {
    const customer = unique("customer");
    const user = await token({
      customer_id: customer,
      scope: "card_orders:read card_orders:write invoices:read invoices:write",
    });
    const ops = await token({ customer_id: customer, scope: "card_orders:read invoices:read fulfilment" });
    const owner = await token({ sub: unique("owner"), customer_id: undefined, scope: "notification_tokens:write" });
    const api = createClient<paths>({
      baseUrl: BASE,
      fetch: (request) => send(request),
      headers: { Authorization: `Bearer ${user}` },
    });
    const asOps = { headers: { Authorization: `Bearer ${ops}` } };

    // The README's lines for a client developer.
    // docs/api.md part 14: the e-mail (the buyer's electronic address, BT-49) is required.
    const profile = await api.PUT("/customers/me/billing_profile", {
      body: {
        legal_name: "Acme Kantinen GmbH",
        street: "Hauptstraße 5",
        postcode: "80331",
        city: "München",
        country_code: "DE",
        vat_id: "DE987654321",
        leitweg_id: "04011000-12345-03",
        email: "rechnung@acme.example",
      },
    });
    expect(profile.response.status).toBe(200);
    expect(profile.data?.data).toMatchObject({
      customer,
      leitweg_id: "04011000-12345-03",
      email: "rechnung@acme.example",
      direct_debit_iban: null,
      document_language: "de",
    });
    const { data: created } = await api.POST("/card_orders", {
      body: { voucher_category: "mixed", payment_method: "bank_transfer", cost_center: "CC-7" },
    });
    const id = created!.data[0]!.id;
    await api.POST("/card_orders/{id}/entries", {
      params: { path: { id } },
      body: { voucher_owner_id: "owner-42", card_holder_name: "Ada Lovelace", amount: "25.00" },
    });
    await api.POST("/card_orders/{id}/submit", { params: { path: { id } } });
    const { data: invoiced, error } = await api.POST("/invoices", { body: { order_id: id, reference: "PO-4711" } });
    if (error) throw new Error(error.errors.map((e) => `${e.code}: ${e.detail}`).join("; "));

    const invoice: components["schemas"]["Invoice"] = invoiced.data[0]!;
    expect(invoice).toMatchObject({
      state: "open",
      net_amount: "25.00",
      gross_amount: "25.00",
      reference: "PO-4711",
      cost_center: "CC-7",
      orders: [{ id, state: "submitted" }],
    });

    const listed = await api.GET("/card_orders", { params: { query: { state: "submitted", page_size: 10 } } });
    expect(listed.data?.data.map((order) => [order.id, order.entries_count, order.invoice?.number])).toStrictEqual([
      [id, 1, invoice.number],
    ]);
    expect(listed.data?.meta.total_entries).toBe(1);

    const paid = await api.POST("/invoices/{id}/pay", { params: { path: { id: invoice.id } }, ...asOps });
    expect(paid.data?.data).toMatchObject({ id: invoice.id, state: "paid", paid_at: expect.any(String) });

    const registered = await api.PUT("/voucher_owners/me/notification_tokens", {
      headers: { Authorization: `Bearer ${owner}` },
      body: { value: unique("fcm"), device_identifier: "pixel-8" },
    });
    expect(registered.response.status).toBe(204);
    const devices = await api.GET("/voucher_owners/me/notification_tokens", {
      headers: { Authorization: `Bearer ${owner}` },
    });
    expect(devices.data?.data.map((device) => device.device_identifier)).toStrictEqual(["pixel-8"]);
  });

  it("gets the error envelope, typed, and the documented headers", async () => {
    const api = createClient<paths>({
      baseUrl: BASE,
      fetch: (request) => send(request),
      headers: { Authorization: `Bearer ${await token({ scope: "card_orders:read" })}` },
    });
    const refused = await api.POST("/card_orders", {
      body: { voucher_category: "gift", payment_method: "direct_debit" },
      params: { header: { "Idempotency-Key": "k-1" } },
    });
    expect(refused.response.status).toBe(403);
    expect(refused.error?.errors.map((e) => [e.code, e.source])).toStrictEqual([
      ["forbidden", { header: "Authorization" }],
    ]);

    const missing = await api.GET("/card_orders/{id}", {
      params: { path: { id: crypto.randomUUID() }, header: { "X-Request-Id": "client-42" } },
    });
    expect(missing.error?.errors[0]?.code).toBe("not_found");
    expect(missing.response.headers.get("X-Request-Id")).toBe("client-42");
  });

  it("does not compile a request the document does not allow", () => {
    const api = createClient<paths>({ baseUrl: BASE, fetch: (request) => send(request) });
    // The calls are never made: `tsc --noEmit` checks that each is refused.
    const refused = () => [
      // @ts-expect-error payment_method is required
      api.POST("/card_orders", { body: { voucher_category: "gift" } }),
      // @ts-expect-error an unknown field (additionalProperties: false)
      api.POST("/card_orders", { body: { voucher_category: "gift", payment_method: "direct_debit", colour: "red" } }),
      api.POST("/card_orders/{id}/entries", {
        params: { path: { id: "x" } },
        // @ts-expect-error amounts are decimal strings, never numbers
        body: { voucher_owner_id: "o", card_holder_name: "A", amount: 25 },
      }),
      // @ts-expect-error no such operation
      api.DELETE("/card_orders/{id}", { params: { path: { id: "x" } } }),
    ];
    expect(refused).toBeTypeOf("function");
  });
});
