import { describe, expect, it } from "vitest";
import { InvoiceLine } from "../src/schemas/invoice-line";
import {
  BASE,
  call,
  createInvoice,
  expectError,
  expectJson,
  follow,
  newBillingProfile,
  newEntry,
  orderIn,
  storeBillingProfile,
  token,
  type Bindings,
} from "./support/api";
import { fieldsOf } from "./support/shape";

// docs/api.md parts 13 and 14: an invoice's lines, in its buyer's document_language (German unless the
// profile says "en"), at the VAT category that where the buyer is and FEE_SUPPLY_KIND decide.

const linesOf = (invoiceId: string) => `/invoices/${invoiceId}/lines`;

async function voucherInvoice(auth: string, amounts: string[], env: Record<string, string> = {}) {
  const entries = amounts.map((amount, i) => ({ ...newEntry, card_holder_name: `Holder ${i + 1}`, amount }));
  const order = await orderIn(auth, "submitted", { entries });
  const response = await call("/invoices", { token: auth, json: { order_id: order.id }, env });
  expect(response.status).toBe(201);
  return { order, invoice: ((await response.json()) as any).data[0] };
}

async function linesOfInvoice(auth: string, invoiceId: string): Promise<any[]> {
  return (await expectJson(await call(linesOf(invoiceId), { token: auth }), 200, expect.anything())).data;
}

async function getInvoice(auth: string, invoiceId: string): Promise<any> {
  return (await expectJson(await call(`/invoices/${invoiceId}`, { token: auth }), 200, expect.anything())).data;
}

/** Moves `order` by `action` with `bindings` for that call; the order as the API then shows it. */
async function transition(auth: string, orderId: string, action: string, bindings: Bindings = {}): Promise<any> {
  const response = await call(`/card_orders/${orderId}/${action}`, { token: auth, method: "POST", env: bindings });
  expect({ action, status: response.status }).toStrictEqual({ action, status: 200 });
  return ((await response.json()) as any).data;
}

/** The one line of a fee invoice. */
const feeLine = (
  description: string,
  quantity: number,
  unitPrice: string,
  netAmount: string,
  vat: [string, string],
) => ({
  type: "invoice_line",
  position: 1,
  description,
  quantity,
  unit_price: unitPrice,
  net_amount: netAmount,
  vat_category: vat[0],
  vat_percent: vat[1],
  card_order_entry_id: null,
});

async function allLines(auth: string, invoiceId: string, pageSize: number) {
  let page = await expectJson(
    await call(`${linesOf(invoiceId)}?page_size=${pageSize}`, { token: auth }),
    200,
    expect.anything(),
  );
  const lines = [...page.data];
  const pages = [page];
  while (page.links.next) {
    page = await follow(page.links.next, auth);
    pages.push(page);
    lines.push(...page.data);
  }
  return { lines, pages };
}

describe("GET /invoices/{id}/lines", () => {
  it("a voucher invoice has a line per entry, oldest first: 'Gutscheinkarte <name>', 1 × amount, O at 0%", async () => {
    const auth = await token();
    const { order, invoice } = await voucherInvoice(auth, ["25.00", "1234.50", "1.00"]);
    const entries = await expectJson(
      await call(`/card_orders/${order.id}/entries`, { token: auth }),
      200,
      expect.anything(),
    );
    const oldestFirst = entries.data.toReversed();
    const link = `${BASE}${linesOf(invoice.id)}?page=1&page_size=25`;
    const { data } = await expectJson(await call(linesOf(invoice.id), { token: auth }), 200, {
      meta: { total_pages: 1, current_page: 1, page_size: 25, total_entries: 3 },
      data: oldestFirst.map((entry: any, i: number) => ({
        type: "invoice_line",
        position: i + 1,
        description: `Gutscheinkarte ${entry.card_holder_name}`,
        quantity: 1,
        unit_price: entry.amount,
        net_amount: entry.amount,
        vat_category: "O",
        vat_percent: "0",
        card_order_entry_id: entry.id,
      })),
      links: { self: link, first: link, last: link, prev: null, next: null },
    });
    expect(Object.keys(data[0])).toStrictEqual(fieldsOf(InvoiceLine));
    expect(invoice.net_amount).toBe("1260.50");
  });

  it("a voucher at a VAT rate is category S at that rate", async () => {
    const auth = await token();
    const { invoice } = await voucherInvoice(auth, ["10.00"], { VOUCHER_VAT_PERCENT: "7.5" });
    const { data } = await expectJson(await call(linesOf(invoice.id), { token: auth }), 200, expect.anything());
    expect(data[0]).toMatchObject({ vat_category: "S", vat_percent: "7.5" });
  });

  it("production bills 'Kartenproduktion', entries_count × fee; shipping 'Versand' once; S, service VAT", async () => {
    const auth = await token();
    const order = await orderIn(auth, "delivered", { entries: [newEntry, newEntry, newEntry] });
    await expectJson(await call(linesOf(order.production_invoice.id), { token: auth }), 200, {
      meta: expect.anything(),
      data: [feeLine("Kartenproduktion", 3, "2.50", "7.50", ["S", "19"])],
      links: expect.anything(),
    });
    await expectJson(await call(linesOf(order.shipping_invoice.id), { token: auth }), 200, {
      meta: expect.anything(),
      data: [feeLine("Versand", 1, "9.90", "9.90", ["S", "19"])],
      links: expect.anything(),
    });
  });

  it.each([1, 2, 3])(
    "pages by cursor through exactly %i full pages, ascending, with no page past the end",
    async (pages) => {
      const auth = await token();
      const amounts = Array.from({ length: pages * 2 }, (_, i) => `${i + 1}.00`);
      const { invoice } = await voucherInvoice(auth, amounts);
      const walk = await allLines(auth, invoice.id, 2);
      expect(walk.pages).toHaveLength(pages);
      expect(walk.lines.map((line: any) => line.position)).toStrictEqual(amounts.map((_, i) => i + 1));
      expect(walk.lines.map((line: any) => line.unit_price)).toStrictEqual(amounts);
      expect(walk.pages.at(-1).links.next).toBeNull();
      for (const page of walk.pages) expect(page.meta.total_entries).toBe(pages * 2);
      // and back from the last page by `prev`
      let page = walk.pages.at(-1);
      const back = [...page.data];
      while (page.links.prev) {
        page = await follow(page.links.prev, auth);
        back.unshift(...page.data);
      }
      expect(back).toStrictEqual(walk.lines);
    },
  );

  it("another customer's invoice, or no invoice, answers 404; it needs invoices:read", async () => {
    const auth = await token();
    const { invoice } = await voucherInvoice(auth, ["5.00"]);
    await expectError(await call(linesOf(invoice.id), { token: await token() }), 404, { code: "not_found" });
    await expectError(await call(linesOf("not-an-id"), { token: auth }), 404, { code: "not_found" });
    await expectError(await call(linesOf(invoice.id), { token: await token({ scope: "invoices:write" }) }), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
  });
});

describe("lines are written in the invoice's batch and never change", () => {
  it("cancelling the invoice keeps its lines", async () => {
    const auth = await token();
    const { invoice } = await voucherInvoice(auth, ["5.00", "6.00"]);
    const before = await expectJson(await call(linesOf(invoice.id), { token: auth }), 200, expect.anything());
    expect((await call(`/invoices/${invoice.id}/cancel`, { token: auth, method: "POST" })).status).toBe(200);
    await expectJson(await call(linesOf(invoice.id), { token: auth }), 200, before);
  });

  it("an invoice made by POST /invoices with createInvoice has its lines at once", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const invoice = await createInvoice(auth, order.id);
    const { meta } = await expectJson(await call(linesOf(invoice.id), { token: auth }), 200, expect.anything());
    expect(meta.total_entries).toBe(1);
  });
});

describe("lines in the buyer's document_language (docs/api.md part 14)", () => {
  const holders = ["Ada Lovelace", "Grace Hopper"].map((name) => ({ ...newEntry, card_holder_name: name }));

  it("\"en\": 'Voucher card <name>', 'Card production', 'Shipping'", async () => {
    const auth = await token();
    await storeBillingProfile(auth, { document_language: "en" });
    const order = await orderIn(auth, "submitted", { entries: holders });
    const voucher = await createInvoice(auth, order.id);
    expect((await linesOfInvoice(auth, voucher.id)).map((line) => line.description)).toStrictEqual([
      "Voucher card Ada Lovelace",
      "Voucher card Grace Hopper",
    ]);
    await transition(auth, order.id, "start_production");
    const delivered = await transition(auth, order.id, "deliver");
    expect(await linesOfInvoice(auth, delivered.production_invoice.id)).toStrictEqual([
      feeLine("Card production", 2, "2.50", "5.00", ["S", "19"]),
    ]);
    expect(await linesOfInvoice(auth, delivered.shipping_invoice.id)).toStrictEqual([
      feeLine("Shipping", 1, "9.90", "9.90", ["S", "19"]),
    ]);
  });

  it("\"de\" (the default): 'Gutscheinkarte <name>', 'Kartenproduktion', 'Versand'", async () => {
    const auth = await token();
    await storeBillingProfile(auth, { document_language: "de" });
    const order = await orderIn(auth, "submitted", { entries: holders });
    const voucher = await createInvoice(auth, order.id);
    expect((await linesOfInvoice(auth, voucher.id)).map((line) => line.description)).toStrictEqual([
      "Gutscheinkarte Ada Lovelace",
      "Gutscheinkarte Grace Hopper",
    ]);
    await transition(auth, order.id, "start_production");
    const delivered = await transition(auth, order.id, "deliver");
    expect((await linesOfInvoice(auth, delivered.production_invoice.id))[0].description).toBe("Kartenproduktion");
    expect((await linesOfInvoice(auth, delivered.shipping_invoice.id))[0].description).toBe("Versand");
  });

  it("is fixed per invoice when it is issued: a later change of the profile's language changes no line", async () => {
    const auth = await token();
    await storeBillingProfile(auth, { document_language: "en" });
    const order = await orderIn(auth, "submitted", { entries: holders });
    const voucher = await createInvoice(auth, order.id);
    const english = await linesOfInvoice(auth, voucher.id);
    await storeBillingProfile(auth, { document_language: "de" });
    expect(await linesOfInvoice(auth, voucher.id)).toStrictEqual(english);
    const producing = await transition(auth, order.id, "start_production");
    expect((await linesOfInvoice(auth, producing.production_invoice.id))[0].description).toBe("Kartenproduktion");
    await storeBillingProfile(auth, { document_language: "en" });
    const delivered = await transition(auth, order.id, "deliver");
    expect((await linesOfInvoice(auth, delivered.production_invoice.id))[0].description).toBe("Kartenproduktion");
    expect((await linesOfInvoice(auth, delivered.shipping_invoice.id))[0].description).toBe("Shipping");
  });
});

describe("VAT by where the buyer is (docs/api.md part 14)", () => {
  // The default profile is a German buyer; a buyer abroad is stored directly (its Leitweg-ID, a
  // German public-sector address, dropped). Three cards: production 7.50, shipping 9.90.
  const BUYERS = {
    DE: { country_code: "DE", vat_id: "DE987654321" },
    FR: { country_code: "FR", vat_id: "FR40303265045", leitweg_id: null },
    GR: { country_code: "GR", vat_id: "EL094014201", leitweg_id: null },
    AT: { country_code: "AT", vat_id: "ATU13585627", leitweg_id: null },
    CH: { country_code: "CH", vat_id: "CHE116281710", leitweg_id: null },
    US: { country_code: "US", vat_id: null, leitweg_id: null },
  } as const;

  it.each([
    ["DE", undefined, "S", "19"],
    ["DE", "services", "S", "19"],
    ["FR", undefined, "K", "0"],
    ["FR", "goods", "K", "0"],
    ["FR", "services", "AE", "0"],
    ["GR", undefined, "K", "0"],
    ["GR", "services", "AE", "0"],
    ["AT", "services", "AE", "0"],
    ["CH", undefined, "G", "0"],
    ["CH", "services", "O", "0"],
    ["US", "goods", "G", "0"],
    ["US", "services", "O", "0"],
  ] as const)(
    "a buyer in %s, FEE_SUPPLY_KIND %s: production and shipping lines %s at %s; vouchers stay O at 0",
    async (country, supplyKind, category, percent) => {
      const auth = await token();
      await storeBillingProfile(auth, BUYERS[country]);
      const bindings: Bindings = supplyKind ? { FEE_SUPPLY_KIND: supplyKind } : {};
      const order = await orderIn(auth, "submitted", { entries: [newEntry, newEntry, newEntry] });
      const voucher = await createInvoice(auth, order.id);
      await transition(auth, order.id, "start_production", bindings);
      const delivered = await transition(auth, order.id, "deliver", bindings);
      const [production, shipping] = [delivered.production_invoice.id, delivered.shipping_invoice.id];

      expect(await linesOfInvoice(auth, production)).toStrictEqual([
        feeLine("Kartenproduktion", 3, "2.50", "7.50", [category, percent]),
      ]);
      expect(await linesOfInvoice(auth, shipping)).toStrictEqual([
        feeLine("Versand", 1, "9.90", "9.90", [category, percent]),
      ]);
      // S: gross = net + 19 % (1.425 → 1.43, 1.881 → 1.88); the exempt categories: gross = net.
      const taxed = category === "S";
      expect(await getInvoice(auth, production)).toMatchObject({
        net_amount: "7.50",
        gross_amount: taxed ? "8.93" : "7.50",
      });
      expect(await getInvoice(auth, shipping)).toMatchObject({
        net_amount: "9.90",
        gross_amount: taxed ? "11.78" : "9.90",
      });
      expect(
        (await linesOfInvoice(auth, voucher.id)).map((line) => [line.vat_category, line.vat_percent]),
      ).toStrictEqual([
        ["O", "0"],
        ["O", "0"],
        ["O", "0"],
      ]);
      expect(voucher).toMatchObject({ net_amount: "75.00", gross_amount: "75.00" });
    },
  );

  it.each(["FR", "US"] as const)(
    "a voucher at VOUCHER_VAT_PERCENT is S at that rate for a buyer in %s too (voucher lines stay as part 13)",
    async (country) => {
      const auth = await token();
      await storeBillingProfile(auth, BUYERS[country]);
      const { invoice } = await voucherInvoice(auth, ["10.00"], { VOUCHER_VAT_PERCENT: "7.5" });
      expect(await linesOfInvoice(auth, invoice.id)).toMatchObject([{ vat_category: "S", vat_percent: "7.5" }]);
      // 10.00 × 7.5 % = 0.75
      expect(invoice).toMatchObject({ net_amount: "10.00", gross_amount: "10.75" });
    },
  );

  it("a Greek buyer PUT through the API (vat_id EL…, country GR) is in the EU: K, not G or S", async () => {
    const auth = await token();
    const { leitweg_id: _, ...profile } = newBillingProfile;
    const put = await call("/customers/me/billing_profile", {
      token: auth,
      method: "PUT",
      json: { ...profile, city: "Αθήνα", postcode: "105 58", country_code: "GR", vat_id: "EL094014201" },
    });
    expect(put.status).toBe(200);
    expect(((await put.json()) as any).data).toMatchObject({ country_code: "GR", vat_id: "EL094014201" });
    const order = await orderIn(auth, "submitted");
    await transition(auth, order.id, "start_production");
    const delivered = await transition(auth, order.id, "deliver");
    expect(await linesOfInvoice(auth, delivered.production_invoice.id)).toStrictEqual([
      feeLine("Kartenproduktion", 1, "2.50", "2.50", ["K", "0"]),
    ]);
    expect(await linesOfInvoice(auth, delivered.shipping_invoice.id)).toStrictEqual([
      feeLine("Versand", 1, "9.90", "9.90", ["K", "0"]),
    ]);
    expect(await getInvoice(auth, delivered.production_invoice.id)).toMatchObject({
      net_amount: "2.50",
      gross_amount: "2.50",
    });
  });
});
