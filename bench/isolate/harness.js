// The Worker `npm run bench:isolate` runs in workerd: GET /?n=<count>&side=service|raw&token=<jwt>
// calls the service's fetch (imported as "service", the bundle's alias) or raw-d1's, n times, with a
// D1 that answers every statement at once from memory (25 card orders, a total of 3,000), so that
// the time is the JavaScript of the list path and nothing else. Answers the bytes served.
import service from "service";
import raw from "../raw-d1/worker.js";

const order = (i) => ({
  id: `00000001-0000-4000-8000-${String(i).padStart(12, "0")}`,
  customerId: "bench-customer-1",
  state: "submitted",
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  submittedAt: "2025-01-01T00:00:00.000Z",
  productionStartedAt: null,
  deliveredAt: null,
  description: `Vouchers for team ${i}`,
  invoiceReference: null,
  costCenter: "CC-100",
  paymentMethod: "bank_transfer",
  voucherCategory: "meal",
  invoiceId: null,
  invoiceNumber: null,
  productionInvoiceId: null,
  productionInvoiceNumber: null,
  shippingInvoiceId: null,
  shippingInvoiceNumber: null,
  entriesCount: 0,
  entriesAmount: 0,
});
const rows = Array.from({ length: 25 }, (_, i) => order(i));
const meta = { rows_read: 26, rows_written: 0 };
// D1 hands out new row objects for every result.
const statement = (sql) => ({
  bind() {
    return this;
  },
  all: async () =>
    sql.includes('AS "total"')
      ? { results: [{ total: 3000 }], meta }
      : { results: rows.map((row) => ({ ...row })), meta },
});
const session = {
  prepare: statement,
  batch: (statements) => Promise.all(statements.map((s) => s.all())),
  getBookmark: () => "00000001-00000000-00004f1e-0123456789abcdef0123456789abcdef",
};
const ctx = { waitUntil() {}, passThroughOnException() {} };

export default {
  async fetch(request, env) {
    const query = new URL(request.url).searchParams;
    const [n, side, token] = [Number(query.get("n")), query.get("side"), query.get("token")];
    const serviceEnv = {
      DB: { withSession: () => session },
      RATE_LIMITER: { limit: async () => ({ success: true }) },
      JWT_SECRET: env.JWT_SECRET,
      APP_SECRET: env.APP_SECRET,
      CORS_ALLOWED_ORIGINS: "",
    };
    const rawEnv = { DB: { prepare: statement, batch: session.batch } };
    const log = console.log;
    console.log = () => {}; // the request log line: a write to stdout, not JavaScript
    try {
      let bytes = 0;
      for (let i = 0; i < n; i++) {
        const response =
          side === "raw"
            ? await raw.fetch(new Request("http://127.0.0.1/?customer=bench-customer-1"), rawEnv)
            : await service.fetch(
                new Request("http://127.0.0.1/card_orders?page_size=25", {
                  headers: { Authorization: `Bearer ${token}` },
                }),
                serviceEnv,
                ctx,
              );
        if (response.status !== 200) return new Response(await response.text(), { status: 500 });
        bytes += (await response.text()).length;
      }
      return new Response(String(bytes));
    } finally {
      console.log = log;
    }
  },
};
