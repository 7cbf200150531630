import { describe, expect, it } from "vitest";
import { InvoiceLine } from "../src/schemas/invoice-line";
import { BASE, call, createInvoice, expectError, expectJson, follow, newEntry, orderIn, token } from "./support/api";
import { fieldsOf } from "./support/shape";

const linesOf = (invoiceId: string) => `/invoices/${invoiceId}/lines`;

async function voucherInvoice(auth: string, amounts: string[], env: Record<string, string> = {}) {
  const entries = amounts.map((amount, i) => ({ ...newEntry, card_holder_name: `Holder ${i + 1}`, amount }));
  const order = await orderIn(auth, "submitted", { entries });
  const response = await call("/invoices", { token: auth, json: { order_id: order.id }, env });
  expect(response.status).toBe(201);
  return { order, invoice: ((await response.json()) as any).data[0] };
}

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
  it("a voucher invoice has a line per entry, oldest first: 'Voucher card <name>', 1 × amount, O at 0%", async () => {
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
        description: `Voucher card ${entry.card_holder_name}`,
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

  it("production bills 'Card production', entries_count × fee; shipping 'Shipping' once; S, service VAT", async () => {
    const auth = await token();
    const order = await orderIn(auth, "delivered", { entries: [newEntry, newEntry, newEntry] });
    const production = await expectJson(
      await call(linesOf(order.production_invoice.id), { token: auth }),
      200,
      expect.anything(),
    );
    expect(production.data).toStrictEqual([
      {
        type: "invoice_line",
        position: 1,
        description: "Card production",
        quantity: 3,
        unit_price: "2.50",
        net_amount: "7.50",
        vat_category: "S",
        vat_percent: "19",
        card_order_entry_id: null,
      },
    ]);
    const shipping = await expectJson(
      await call(linesOf(order.shipping_invoice.id), { token: auth }),
      200,
      expect.anything(),
    );
    expect(shipping.data).toStrictEqual([
      {
        type: "invoice_line",
        position: 1,
        description: "Shipping",
        quantity: 1,
        unit_price: "9.90",
        net_amount: "9.90",
        vat_category: "S",
        vat_percent: "19",
        card_order_entry_id: null,
      },
    ]);
  });

  it("a fee at 0% is category Z", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const response = await call(`/card_orders/${order.id}/start_production`, {
      token: auth,
      method: "POST",
      env: { SERVICE_VAT_PERCENT: "0" },
    });
    const { data } = (await response.json()) as any;
    const lines = await expectJson(
      await call(linesOf(data.production_invoice.id), { token: auth }),
      200,
      expect.anything(),
    );
    expect(lines.data[0]).toMatchObject({ vat_category: "Z", vat_percent: "0" });
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
