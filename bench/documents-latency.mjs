// `npm run bench:documents` (node bench/documents-latency.mjs [--quick] [--port <port>]): the wall
// time of an e-invoice's first request, which renders it and stores it (issue 24 point 3), against
// the same document's second request, which R2 serves, for invoices of 1, 50 and 500 lines, as PDF
// and as UBL. The API Worker and the documents Worker run as the bench runs them
// (scripts/worker-host.mjs, no inspector), on a local D1 and R2; the invoices are made through the
// API: a billing profile, card orders with their entries, submit, POST /invoices.
// Per invoice and format: GET .../document?format= twice, the first and the stored; the figures are
// medians over the invoices, the ratio first / stored of the medians. The documents Worker's first
// PDF (its isolate fresh, the fonts still to decode), then its first UBL, are a warm-up invoice's,
// reported apart. The last line printed is one JSON object; BENCHMARKS.md ("PDF rendering") explains it.
import { mkdtempSync, readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { sign } from "hono/jwt";
import { startWorker } from "../scripts/local-worker.mjs";
import { isFree } from "../scripts/ports.mjs";
import { expectStatus } from "./http.mjs";
import { median } from "./measure.mjs";
import { runBench } from "./lifecycle.mjs";

process.env.WRANGLER_SEND_METRICS = "false";

const { values: flags } = parseArgs({
  options: { quick: { type: "boolean", default: false }, port: { type: "string", default: "8880" } },
});
const SIZES = [1, 50, 500];
const FORMATS = ["pdf", "ubl"];
const INVOICES = flags.quick ? 3 : 10;
// Entries are added this many at a time (an order's 500 would take minutes one after the other).
const CONCURRENCY = 6;
const RATE_LIMIT = 100_000_000;
const SCOPES = "card_orders:read card_orders:write invoices:read invoices:write";
// A public buyer with a Leitweg-ID and an e-mail address, as test/support/api.ts's newBillingProfile.
const PROFILE = {
  legal_name: "Müller & Söhne Gastronomie GmbH",
  street: "Hauptstraße 5",
  postcode: "80331",
  city: "München",
  country_code: "DE",
  vat_id: "DE987654321",
  leitweg_id: "04011000-12345-03",
  email: "rechnung@mueller-soehne.example",
};
const ORDER = { voucher_category: "meal", payment_method: "bank_transfer", description: "bench documents" };
// Card holders with umlauts (the PDF's fonts encode each), amounts of 10 to 150 EUR, as bench/render.mjs.
const NAMES = ["Jürgen Groß", "Zoë Weiß-Schäfer", "Björn Müller", "Käthe Krüger", "Özlem Fuß", "Günter Jäger"];
const AMOUNTS = ["10.00", "25.00", "25.50", "50.00", "100.00", "150.00"];

const work = mkdtempSync(join(tmpdir(), "bench-documents-"));
const t0 = Date.now();
const log = (line) => console.error(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${line}`);

/** One GET of a document: wall time to the last byte, and the bytes. */
async function getDocument(url, token) {
  const started = performance.now();
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  const body = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${body.toString().slice(0, 300)}`);
  return { ms, body, contentType: response.headers.get("Content-Type"), etag: response.headers.get("ETag") };
}

/** An issued voucher invoice of `lines` lines (one card order, its entries, submitted), by its id. */
async function newInvoice(url, token, lines) {
  const post = async (path, json, status = 201) =>
    (await expectStatus(status, url + path, { token, method: "POST", json })).body;
  const order = (await post("/card_orders", ORDER)).data[0].id;
  for (let next = 0; next < lines; next += CONCURRENCY)
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, lines - next) }, (_, k) => {
        const i = next + k;
        return post(`/card_orders/${order}/entries`, {
          voucher_owner_id: `bench-owner-${i % 40}`,
          card_holder_name: NAMES[i % NAMES.length],
          amount: AMOUNTS[i % AMOUNTS.length],
        });
      }),
    );
  await post(`/card_orders/${order}/submit`, undefined, 200);
  return (await post("/invoices", { order_id: order })).data[0].id;
}

/**
 * The floor of a request here, next to each invoice's documents: GET /health (no D1, no R2) and
 * GET /invoices/{id} (authentication, one D1 round trip, the invoice as JSON).
 */
async function baselines(url, token, invoice) {
  const timed = async (path, options) => {
    const started = performance.now();
    await expectStatus(200, url + path, options);
    return performance.now() - started;
  };
  return { health: await timed("/health"), invoice: await timed(`/invoices/${invoice}`, { token }) };
}

/** The first and the second request of one document, checked: the same bytes, of the format asked. */
async function firstAndStored(url, token, invoice, format) {
  const path = `${url}/invoices/${invoice}/document?format=${format}`;
  const first = await getDocument(path, token);
  const stored = await getDocument(path, token);
  const magic = format === "pdf" ? "%PDF-" : "<?xml";
  if (!first.body.subarray(0, 5).equals(Buffer.from(magic)))
    throw new Error(`${path}: the first answer is no ${format} (${first.contentType})`);
  if (!stored.body.equals(first.body) || stored.etag !== first.etag)
    throw new Error(`${path}: the stored answer differs from the first`);
  return { first: first.ms, stored: stored.ms, bytes: first.body.length };
}

async function main() {
  const port = Number(flags.port);
  if (!(await isFree(port))) throw new Error(`port ${port} is in use; pass --port <port>`);
  const machine = { loadAverage: loadavg(), cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length };
  const wrangler = JSON.parse(
    readFileSync(new URL("../node_modules/wrangler/package.json", import.meta.url), "utf8"),
  ).version;
  const secret = crypto.randomUUID() + crypto.randomUUID();
  log(`starting the API Worker and the documents Worker on port ${port} (scripts/worker-host.mjs)`);
  const worker = await startWorker({
    name: "bench-documents",
    port,
    rateLimit: RATE_LIMIT,
    vars: { JWT_SECRET: secret, APP_SECRET: crypto.randomUUID() + crypto.randomUUID() },
    inspector: false,
    env: { WRANGLER_LOG_PATH: join(work, "wrangler-logs"), WORKER_HOST_KEEP: "bench-documents-none" },
  });
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const token = await sign({ sub: "bench", customer_id: "bench-documents", scope: SCOPES, exp }, secret, "HS256");
  await expectStatus(200, `${worker.url}/customers/me/billing_profile`, { token, method: "PUT", json: PROFILE });

  log(`issuing ${INVOICES} invoices of each of ${SIZES.join(", ")} lines, and one of 1 line to warm up`);
  const warmup = await newInvoice(worker.url, token, 1);
  const invoices = {};
  for (const lines of SIZES) {
    invoices[lines] = [];
    for (let i = 0; i < INVOICES; i++) invoices[lines].push(await newInvoice(worker.url, token, lines));
    log(`  ${INVOICES} invoices of ${lines} lines issued`);
  }

  // The documents Worker's first renders: its isolate fresh, its fonts still to decode.
  const firsts = {};
  for (const format of FORMATS) firsts[format] = await firstAndStored(worker.url, token, warmup, format);
  log("measuring: per invoice, each format's first request and its second, the sizes taking turns");
  const samples = Object.fromEntries(SIZES.flatMap((lines) => FORMATS.map((format) => [`${format}-${lines}`, []])));
  const reads = [];
  for (let i = 0; i < INVOICES; i++)
    for (const lines of SIZES) {
      reads.push(await baselines(worker.url, token, invoices[lines][i]));
      for (const format of FORMATS)
        samples[`${format}-${lines}`].push(await firstAndStored(worker.url, token, invoices[lines][i], format));
    }

  const rows = SIZES.flatMap((lines) =>
    FORMATS.map((format) => {
      const taken = samples[`${format}-${lines}`];
      const [first, stored] = [median(taken.map((s) => s.first)), median(taken.map((s) => s.stored))];
      return {
        lines,
        format,
        bytes: taken[0].bytes,
        first_median_ms: round1(first),
        first_max_ms: round1(Math.max(...taken.map((s) => s.first))),
        stored_median_ms: round1(stored),
        stored_max_ms: round1(Math.max(...taken.map((s) => s.stored))),
        first_stored_ratio: round1(first / stored),
        // What the first request adds: reading the invoice and its lines, the render, the R2 put.
        first_less_stored_ms: round1(first - stored),
      };
    }),
  );
  const ms = (x) => x.toFixed(1).padStart(8);
  console.log(
    [
      "",
      `${flags.quick ? "quick" : "full"} run, ${((Date.now() - t0) / 1000).toFixed(0)} s: wall ms of ` +
        `GET /invoices/{id}/document?format=, ${INVOICES} invoices a size, local D1 and R2, loopback`,
      "lines fmt    bytes   first: median     max   stored: median     max   first/stored  first-stored",
      ...rows.map(
        (r) =>
          `${String(r.lines).padStart(5)} ${r.format.padEnd(4)} ${String(r.bytes).padStart(7)}  ` +
          `${ms(r.first_median_ms)} ${ms(r.first_max_ms)}          ${ms(r.stored_median_ms)} ` +
          `${ms(r.stored_max_ms)}   ${r.first_stored_ratio.toFixed(1).padStart(11)}x ${ms(r.first_less_stored_ms)}`,
      ),
      `the floor, medians of ${reads.length}: GET /health ${median(reads.map((r) => r.health)).toFixed(1)} ms, ` +
        `GET /invoices/{id} ${median(reads.map((r) => r.invoice)).toFixed(1)} ms`,
      "the warm-up invoice (1 line), the documents Worker's first PDF (its isolate fresh), then its first UBL: " +
        FORMATS.map((f) => `${f} ${firsts[f].first.toFixed(1)} ms, stored ${firsts[f].stored.toFixed(1)} ms`).join(
          "; ",
        ),
      `machine: ${machine.cores} x ${machine.cpu}; Node ${process.version}; wrangler ${wrangler}; ` +
        `load average ${machine.loadAverage.map((x) => x.toFixed(2)).join(", ")} at the start`,
    ].join("\n"),
  );
  console.log(
    JSON.stringify({
      mode: flags.quick ? "quick" : "full",
      invoices_per_size: INVOICES,
      rows,
      health_median_ms: round1(median(reads.map((r) => r.health))),
      invoice_median_ms: round1(median(reads.map((r) => r.invoice))),
      isolate_first: Object.fromEntries(
        FORMATS.map((f) => [f, { first_ms: round1(firsts[f].first), stored_ms: round1(firsts[f].stored) }]),
      ),
      node: process.version,
      wrangler,
      load_average_start: machine.loadAverage.map((x) => Math.round(x * 100) / 100),
    }),
  );
}

const round1 = (x) => Math.round(x * 10) / 10;

runBench(main, { work, log });
