import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatCents } from "../src/domain/money";
import { call, orderIn, token } from "./support/api";

// Whatever the entries and the rates, an invoice's lines add up to its net_amount, and both of its
// e-invoices (UBL and CII) state exactly the invoice's net, VAT and gross amounts and every line's.

const RUNS = 25;
const TIMEOUT_MS = 120_000;

/** Cents of a wire amount of any size (gross amounts may pass the 10000.00 that requests may send). */
const cents = (text: string) => {
  expect(text).toMatch(/^(0|[1-9][0-9]*)\.[0-9]{2}$/);
  return Number(text.replace(".", ""));
};

const amount = fc.integer({ min: 100, max: 1_000_000 }).map(formatCents);
const percent = fc.constantFrom("0", "7", "19", "7.5", "16", "0.5");

/** The text of every element `name` (any namespace prefix given in it) of an XML document. */
const all = (xml: string, name: string) =>
  [...xml.matchAll(new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`, "g"))].map((match) => match[1]);

async function json(path: string, auth: string) {
  const response = await call(path, { token: auth });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}

describe("invoice totals (property)", () => {
  it(
    "lines add up to net_amount, and the UBL and CII documents state the invoice's amounts and lines",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(amount, { minLength: 1, maxLength: 8 }), percent, async (amounts, rate) => {
          const auth = await token();
          const entries = amounts.map((value, i) => ({
            voucher_owner_id: `o-${i}`,
            card_holder_name: `N ${i}`,
            amount: value,
          }));
          const order = await orderIn(auth, "submitted", { entries });
          const created = await call("/invoices", {
            token: auth,
            json: { order_id: order.id },
            env: { VOUCHER_VAT_PERCENT: rate },
          });
          expect(created.status).toBe(201);
          const invoice = ((await created.json()) as any).data[0];
          const lines = (await json(`/invoices/${invoice.id}/lines?page_size=100`, auth)).data;

          const net = cents(invoice.net_amount);
          const gross = cents(invoice.gross_amount);
          const lineCents = lines.map((line: any) => cents(line.net_amount));
          expect(lineCents.reduce((a: number, b: number) => a + b, 0)).toBe(net);
          expect(lines.map((line: any) => line.net_amount).toSorted()).toStrictEqual(amounts.toSorted());

          const vat = formatCents(gross - net);
          const ubl = await (await call(`/invoices/${invoice.id}/document?format=ubl`, { token: auth })).text();
          const cii = await (await call(`/invoices/${invoice.id}/document?format=cii`, { token: auth })).text();
          // BT-106 sum of lines, BT-109 net, BT-110 VAT, BT-112 gross, BT-115 payable; BT-131 each line.
          expect(all(ubl, "cbc:TaxExclusiveAmount")).toStrictEqual([invoice.net_amount]);
          expect(all(ubl, "cbc:TaxInclusiveAmount")).toStrictEqual([invoice.gross_amount]);
          expect(all(ubl, "cbc:PayableAmount")).toStrictEqual([invoice.gross_amount]);
          expect(new Set(all(ubl, "cbc:TaxAmount"))).toStrictEqual(new Set([vat]));
          expect(all(ubl, "cbc:LineExtensionAmount")).toStrictEqual([
            invoice.net_amount,
            ...lines.map((line: any) => line.net_amount),
          ]);
          expect(all(cii, "ram:TaxBasisTotalAmount")).toStrictEqual([invoice.net_amount]);
          expect(all(cii, "ram:TaxTotalAmount")).toStrictEqual([vat]);
          expect(all(cii, "ram:GrandTotalAmount")).toStrictEqual([invoice.gross_amount]);
          expect(all(cii, "ram:DuePayableAmount")).toStrictEqual([invoice.gross_amount]);
          expect(all(cii, "ram:LineTotalAmount")).toStrictEqual([
            ...lines.map((line: any) => line.net_amount),
            invoice.net_amount,
          ]);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );
});
