// `npm run bench:deliveries` [-- --invoices N] [--port P] (issue 37 point 4; BENCHMARKS.md, "Document
// deliveries"): stdout `deliveries sent=N failed=F seconds=S`, everything else to stderr.
import { randomBytes, randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { startWorker } from "../scripts/local-worker.mjs";
import { mapPool } from "../scripts/load/util.mjs";
import { firstFreePorts, INSPECTOR_OFFSET } from "../scripts/ports.mjs";
import { call, tokenOf } from "./http.mjs";
import { machineLine } from "./lifecycle.mjs";

process.env.WRANGLER_SEND_METRICS = "false";
const { values: flags } = parseArgs({
  options: { invoices: { type: "string", default: "1000" }, port: { type: "string", default: "9500" } },
});
const COUNT = Number(flags.invoices);
const CUSTOMERS = 10;
const CONCURRENCY = 8;
const SCOPES = "card_orders:read card_orders:write invoices:read invoices:write payments:read";
const log = (line) => process.stderr.write(`${line}\n`);

const port = await firstFreePorts(Number(flags.port), [0, INSPECTOR_OFFSET], "--port");
const secret = randomBytes(32).toString("hex");
log(machineLine());
const w = await startWorker({
  name: "bench-deliveries",
  port,
  vars: { JWT_SECRET: secret, APP_SECRET: randomBytes(32).toString("hex") },
  rateLimit: 1_000_000,
});
try {
  const tokenFor = (customer) =>
    tokenOf(secret, { sub: `bench-${customer}`, customer_id: customer, scope: SCOPES }, 7200);
  const api = async (token, method, path, json) => {
    const { status, body } = await call(w.url + path, { method, token, json });
    if (status >= 300) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(body).slice(0, 300)}`);
    return body;
  };
  const customers = await Promise.all(
    Array.from({ length: CUSTOMERS }, async (_, i) => {
      const token = await tokenFor(`bench-${randomUUID()}`);
      await api(token, "PUT", "/customers/me/billing_profile", {
        legal_name: `Kunde ${i} GmbH`,
        street: "Hauptstraße 5",
        postcode: "80331",
        city: "München",
        country_code: "DE",
        email: `rechnung-${i}@kunde.example`,
        ...(i % 2 === 0 ? { leitweg_id: "04011000-12345-03" } : {}),
      });
      return token;
    }),
  );
  // The orders first (not timed): one entry each, submitted.
  const orders = [];
  const prepare = async (i) => {
    const token = customers[i % CUSTOMERS];
    const order = (
      await api(token, "POST", "/card_orders", { voucher_category: "meal", payment_method: "bank_transfer" })
    ).data[0];
    await api(token, "POST", `/card_orders/${order.id}/entries`, {
      voucher_owner_id: `o-${i}`,
      card_holder_name: `Karte ${i}`,
      amount: `${10 + (i % 90)}.00`,
    });
    await api(token, "POST", `/card_orders/${order.id}/submit`);
    orders[i] = { token, id: order.id };
  };
  const all = Array.from({ length: COUNT }, (_, i) => i);
  const inParallel = (work) => mapPool(all, CONCURRENCY, work);
  await inParallel(prepare);
  log(`${COUNT} orders submitted; issuing their invoices`);
  const started = Date.now();
  let lastIssued = 0;
  await inParallel(async (i) => {
    await api(orders[i].token, "POST", "/invoices", { order_id: orders[i].id });
    lastIssued = Math.max(lastIssued, Date.now());
  });
  log(`${COUNT} invoices issued in ${((lastIssued - started) / 1000).toFixed(1)} s`);
  const office = customers[0];
  const total = async (query) =>
    (await api(office, "GET", `/invoice_deliveries?${query}&page_size=1`)).meta.total_entries;
  const deadline = Date.now() + 15 * 60_000;
  for (let pending = await total("state=pending"); pending > 0; pending = await total("state=pending")) {
    if (Date.now() > deadline) throw new Error(`${pending} deliveries still pending after 15 min`);
    log(`pending ${pending}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
  // The latest sent_at among all sent deliveries (newest first by created_at: every page is read).
  let latest = 0;
  for (let page = 1, pages = 1; page <= pages; page++) {
    const body = await api(office, "GET", `/invoice_deliveries?state=sent&page_size=100&page=${page}`);
    pages = body.meta.total_pages;
    for (const d of body.data) latest = Math.max(latest, Date.parse(d.sent_at));
  }
  const sent = await total("state=sent");
  const failed = await total("state=failed");
  console.log(`deliveries sent=${sent} failed=${failed} seconds=${((latest - lastIssued) / 1000).toFixed(1)}`);
} finally {
  await w.stop();
}
