// The CPU time of rendering an e-invoice in Node, for `npm run bench` (its part `render`): UBL, CII and
// PDF of voucher invoices of 1, 50 and 500 lines (500: an order's most entries), against a baseline
// measured in the same run, JSON.stringify of the same invoice (the EInvoice the API Worker sends). The
// documents Worker's `Renderer.render`, bundled as wrangler bundles it, is called after a warm-up; the
// process's CPU time (process.cpuUsage) around each sample, so the GC a render causes counts. The
// workerd side (warm and cold CPU over RPC, memory) was `npm run bench:render`, removed once it had
// answered its question (BENCHMARKS.md, "Benches removed").
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { BINARY_ASSETS } from "../scripts/import-source.mjs";
import { voucherInvoiceOf } from "../test/einvoice/fixtures.mjs";
import { median } from "./measure.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SIZES = [1, 50, 500];
const FORMATS = ["ubl", "cii", "pdf"];

// --- The invoice: the EInvoice the API Worker hands the documents Worker, made by the service's own
// code (test/einvoice/fixtures.mjs): a voucher invoice of the e-invoice test's German buyer.

const FIRST = ["Jürgen", "Zoë", "Björn", "Käthe", "Sören", "Günter", "Özlem", "Jörg", "Anna-Lena", "Ümit", "René"];
const LAST = [
  "Groß",
  "Weiß-Schäfer",
  "Müller",
  "Krüger",
  "Schröder",
  "Öztürk",
  "Bäcker",
  "Löwe",
  "Fuß",
  "Jäger",
  "Dürr",
];
const AMOUNTS = [1000, 2500, 2550, 5000, 10000, 15000];

/** A voucher invoice of `count` lines ("Gutscheinkarte <name>", category O), as the Worker receives it. */
export function voucherInvoice(count) {
  const cards = Array.from({ length: count }, (_, i) => [
    `${FIRST[i % FIRST.length]} ${LAST[(i * 7 + Math.floor(i / LAST.length)) % LAST.length]}`,
    AMOUNTS[i % AMOUNTS.length],
  ]);
  return voucherInvoiceOf("INV-2026-000101", cards);
}

// --- The documents Worker, bundled as wrangler bundles it (wrangler.documents.toml: minified),
// with a second entrypoint, the baseline: the same arguments, serialized as JSON.

const BASELINE = `
export { default, Renderer } from "./src/documents/worker";
import { WorkerEntrypoint } from "cloudflare:workers";
export class Baseline extends WorkerEntrypoint {
  json(doc) { return JSON.stringify(doc); }
}`;

async function documentsWorker() {
  const result = await build({
    stdin: { contents: BASELINE, resolveDir: ROOT, loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    minify: true,
    write: false,
    loader: BINARY_ASSETS, // the PDF's fonts and colour profile, as wrangler.documents.toml's Data rule
    target: "es2022", // binary assets decoded by a helper, not Uint8Array.fromBase64 (Node 24 lacks it)
    logLevel: "error",
    plugins: [stubWorkers],
  });
  return result.outputFiles[0].text;
}

// In Node, WorkerEntrypoint is a plain class: render() uses nothing of it.
const stubWorkers = {
  name: "cloudflare-workers-stub",
  setup(b) {
    b.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: "workers", namespace: "stub" }));
    b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
      contents: "export class WorkerEntrypoint { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }",
      loader: "js",
    }));
  },
};

/** What is measured, per size: the baseline and a render in each format. */
const variants = () =>
  SIZES.flatMap((lines) => [{ lines, format: "json" }, ...FORMATS.map((format) => ({ lines, format }))]);
const key = (v) => `${v.format}-${v.lines}`;

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const stats = (samples) => ({ median: median(samples), p95: percentile(samples, 95), max: Math.max(...samples) });

// --- Node.

// The whole process: V8's GC and compiler threads count too, so the figure errs high. (On this kernel
// process.threadCpuUsage advances in steps of up to milliseconds; process.cpuUsage in microseconds.)
const cpuMsSince = (start) => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};

/**
 * Per-render CPU ms of every variant in Node, one variant after the other (so that each pays for its
 * own garbage): a warm-up, then `rounds` samples. A sample is one call, or for the cheap ones a batch
 * worth about 2 ms, divided (one call alone would be in the clock's noise).
 */
export async function measureNode({ rounds, warmup = 30 }) {
  const { Renderer } = await import(
    `data:text/javascript;base64,${Buffer.from(await documentsWorker()).toString("base64")}`
  );
  const renderer = new Renderer({}, {});
  const fixtures = Object.fromEntries(SIZES.map((n) => [n, voucherInvoice(n)]));
  // The renderer answers a promise (the PDF awaits its compression and hash), the baseline a string.
  const call = ({ lines, format }) => {
    const doc = fixtures[lines];
    return format === "json" ? JSON.stringify(doc) : renderer.render(doc, format);
  };
  const settled = async (v) => {
    const out = call(v);
    return typeof out === "string" ? out : await out;
  };
  const figures = {};
  for (const v of variants()) {
    // Warm: at least `warmup` calls and 200 ms, enough for the cheap ones to be optimized.
    let output = await settled(v);
    const warming = process.cpuUsage();
    for (let i = 1; i < warmup || cpuMsSince(warming) < 200; i++) output = await settled(v);
    const start = process.cpuUsage();
    let calls = 0;
    while (cpuMsSince(start) < 10) await settled(v), calls++;
    const batch = Math.max(1, Math.round(2 / (cpuMsSince(start) / calls)));
    const samples = [];
    for (let round = 0; round < rounds; round++) {
      const start = process.cpuUsage();
      for (let i = 0; i < batch; i++) {
        const out = call(v);
        if (typeof out !== "string") await out;
      }
      samples.push(cpuMsSince(start) / batch);
    }
    figures[key(v)] = { ...stats(samples), batch, output };
  }
  return figures;
}

// --- Report.

const round3 = (x) => Math.round(x * 1000) / 1000;

/** One row per size and format: bytes, Node's median and p95 ms, the ratio to the baseline's median. */
export const renderRows = (node) =>
  SIZES.flatMap((lines) =>
    FORMATS.map((format) => {
      const k = `${format}-${lines}`;
      return {
        lines,
        format,
        bytes: Buffer.byteLength(node[k].output),
        node_median_ms: round3(node[k].median),
        node_p95_ms: round3(node[k].p95),
        node_json_ratio: round3(node[k].median / node[`json-${lines}`].median),
      };
    }),
  );
