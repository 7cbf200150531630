// `npm run bench:render` (node bench/render.mjs [--quick] [--node-only]): the CPU time and memory of
// rendering an e-invoice (issue 23 point 6, issue 24 point 3), UBL, CII and PDF, for voucher invoices
// of 1, 50 and 500 lines (500: an order's most entries), against the Workers Free plan's 10 ms of CPU
// a request and an isolate's 128 MB, and against a baseline measured in the same run: JSON.stringify
// of the same invoice (the EInvoice the API Worker sends).
//
// Two measurements, both of CPU time, not wall time:
// - Node (the V8 of workerd, give or take a release): the documents Worker's `Renderer.render`,
//   bundled as wrangler bundles it, called after a warm-up; the process's CPU time (process.cpuUsage)
//   around each sample, so the GC a render causes counts. Median and p95 per render.
// - workerd (wrangler's Miniflare): the documents Worker behind a service binding, called over RPC
//   as the API Worker calls it, by a harness Worker. Inside workerd the clocks stand still while
//   JavaScript runs (performance.now() advances only on I/O), so the time is read from outside: the
//   CPU time the kernel counted for workerd's main thread, which runs the isolates
//   (/proc/<pid>/task/<pid>/schedstat, nanoseconds; Linux only), minus that of an empty request.
//   Warm: the same isolate, after a warm-up. Cold: the first call into a Worker's fresh isolate, as
//   after a deployment or an eviction (its functions still to compile, its code unoptimized).
// Each variant is measured in a block of its own, so that the garbage it leaves is collected on its
// own time. The verdicts against the limit use workerd's warm median, warm p95 and cold median
// (Node's median and p95 without workerd).
// Memory: in Node, V8's heap and external memory around a warm render (memoryOfRender); in workerd,
// the process's resident peak over a render, in a workerd per variant (measureWorkerdMemory).
// The last line printed is one JSON object; BENCHMARKS.md ("E-invoice rendering") explains the figures.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { GCProfiler, getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { build } from "esbuild";
import { BINARY_ASSETS } from "../scripts/import-source.mjs";
import { voucherInvoiceOf } from "../test/einvoice/fixtures.mjs";
import { median } from "./measure.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The Workers Free plan's CPU time a request (developers.cloudflare.com/workers/platform/limits). */
export const LIMIT_MS = 10;
const SIZES = [1, 50, 500];
const FORMATS = ["ubl", "cii", "pdf"];
const compatibilityDate = readFileSync(join(ROOT, "wrangler.documents.toml"), "utf8").match(
  /^compatibility_date = "(.+)"$/m,
)[1];

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

async function documentsWorker(stub) {
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
    ...(stub ? { plugins: [stubWorkers] } : { external: ["cloudflare:*"] }),
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
 * worth about 2 ms, divided (one call alone would be in the clock's noise). With `memorySamples`, then
 * that many renders' memory (memoryOfRender), of which the medians are kept.
 */
export async function measureNode({ rounds, warmup = 30, memorySamples = 0 }) {
  const { Renderer } = await import(
    `data:text/javascript;base64,${Buffer.from(await documentsWorker(true)).toString("base64")}`
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
    if (memorySamples > 0) {
      const memory = [];
      for (let i = 0; i < memorySamples; i++) memory.push(await memoryOfRender(() => settled(v)));
      figures[key(v)].memory = {
        allocatedKiB: median(memory.map((m) => m.allocatedKiB)),
        peakKiB: median(memory.map((m) => m.peakKiB)),
      };
    }
  }
  return figures;
}

let gc;

/**
 * The memory of one render (`render`, warm), from V8's own counts: the heap's used bytes and the
 * external memory (ArrayBuffers: the PDF's bytes, the compression's buffers) after a full GC, then
 * at every GC during the render (GCProfiler: before and after it) and at its end. Between GCs they
 * only grow (the external memory nearly so), so the largest "before" or end value, less the start,
 * is the peak under Node's GC policy: `peakKiB`. `allocatedKiB`: the heap bytes allocated, summed
 * over the stretches between GCs; what the heap would hold at once if no GC ran.
 */
async function memoryOfRender(render) {
  if (!gc) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc");
  }
  gc();
  gc();
  const start = getHeapStatistics();
  const profiler = new GCProfiler();
  profiler.start();
  await render();
  const end = getHeapStatistics();
  const { statistics } = profiler.stop();
  const total = (heap, external) => heap + external;
  let [allocated, since, peak] = [0, start.used_heap_size, total(start.used_heap_size, start.external_memory)];
  for (const { beforeGC, afterGC } of statistics) {
    allocated += beforeGC.heapStatistics.usedHeapSize - since;
    since = afterGC.heapStatistics.usedHeapSize;
    peak = Math.max(peak, total(beforeGC.heapStatistics.usedHeapSize, beforeGC.heapStatistics.externalMemory));
  }
  allocated += end.used_heap_size - since;
  peak = Math.max(peak, total(end.used_heap_size, end.external_memory));
  const kib = (bytes) => bytes / 1024;
  return {
    allocatedKiB: kib(allocated),
    peakKiB: kib(peak - total(start.used_heap_size, start.external_memory)),
  };
}

// --- workerd.

/** The harness: GET /?binding=&lines=&format=&n= calls the binding n times; echo=1 answers the document. */
function harnessScript() {
  const fixtures = Object.fromEntries(SIZES.map((n) => [n, voucherInvoice(n)]));
  return `const FIXTURES = ${JSON.stringify(fixtures)};
export default {
  async fetch(request, env) {
    const q = new URL(request.url).searchParams;
    const n = Number(q.get("n") ?? 0);
    if (n === 0) return new Response("");
    const doc = FIXTURES[q.get("lines")];
    const target = env[q.get("binding")];
    const format = q.get("format");
    let out = "";
    for (let i = 0; i < n; i++) out = format === "json" ? await target.json(doc) : await target.render(doc, format);
    return new Response(q.get("echo") ? out : String(out.length));
  },
};`;
}

const SETTLE_MS = 25;

/** The workerd process among this process's children (the newest: an earlier one may be exiting). */
function workerdPid() {
  const children = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
        // Fields from the state on: state, ppid, ..., starttime (the 20th).
        const alive = fields[0] !== "Z" && Number(fields[1]) === process.pid;
        return alive && readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd"
          ? [{ pid, start: Number(fields[19]) }]
          : [];
      } catch {
        return []; // gone meanwhile
      }
    });
  if (children.length === 0) throw new Error("no workerd process among this process's children");
  return children.sort((a, b) => b.start - a.start)[0].pid;
}

/**
 * Runs `use` against a workerd of the harness and the given documents Workers. `use` gets
 * request(query) → { ms: CPU ms of workerd's main thread, body: the answer's bytes }, and the process's
 * memory: rssKiB() (resident now), peakKiB() (the most resident since the start or resetPeak()).
 */
async function withWorkerd(documents, bindings, use) {
  const fromWrangler = createRequire(createRequire(join(ROOT, "package.json")).resolve("wrangler/package.json"));
  const { Miniflare, convertV4MiniflareOptions } = fromWrangler("miniflare");
  const worker = (name, script, serviceBindings) => ({
    name,
    modules: true,
    script,
    compatibilityDate,
    serviceBindings,
  });
  const names = [...new Set(Object.values(bindings).map((b) => b.name))];
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      workers: [worker("harness", harnessScript(), bindings), ...names.map((name) => worker(name, documents))],
    }),
  );
  try {
    await mf.ready;
    const pid = workerdPid();
    const cpu = () => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
    const status = (field) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);
    const memory = {
      rssKiB: () => status("VmRSS"),
      peakKiB: () => status("VmHWM"),
      // Linux's clear_refs "5": the peak starts again from what is resident now.
      resetPeak: () => writeFileSync(`/proc/${pid}/clear_refs`, "5"),
    };
    const request = async (query) => {
      const before = cpu();
      const response = await mf.dispatchFetch(`http://bench/?${new URLSearchParams(query)}`);
      const body = Buffer.from(await response.arrayBuffer());
      // What workerd does after the response (the request's clean-up, the GC it set off) is the
      // request's too: read the clock once the thread has settled, not as the response arrives.
      await new Promise((settled) => setTimeout(settled, SETTLE_MS));
      const ms = cpu() - before;
      if (response.status !== 200) throw new Error(`${JSON.stringify(query)}: ${response.status} ${body}`);
      return { ms, body };
    };
    return await use(request, memory);
  } finally {
    await mf.dispose();
  }
}

/**
 * Per-call CPU ms in workerd, warm and cold, of every variant, each less the median empty request.
 * Warm: one documents Worker; after a warm-up, `rounds` requests per variant, each of n calls (one
 * for anything that takes 2 ms or more). Cold, in a workerd of its own (so that the
 * warm isolate's garbage is not collected on the cold calls' time, nor theirs on the warm ones'):
 * `coldCopies` Workers of the same bundle per variant, each called once.
 */
export async function measureWorkerd({ rounds, coldCopies, node, warmup = 10 }) {
  const documents = await documentsWorker(false);
  const all = variants();
  const entrypoint = (v) => (v.format === "json" ? "Baseline" : "Renderer");
  const query = (v, binding, n) => ({ binding, lines: v.lines, format: v.format, n });
  const empties = [];

  // Each request of 2 ms or more in Node, or 20 calls (whose RPC overhead workerd adds on top).
  const calls = Object.fromEntries(
    all.map((v) => [key(v), Math.max(1, Math.min(20, Math.round(2 / node[key(v)].median)))]),
  );
  const warmBindings = {
    RENDERER: { name: "documents", entrypoint: "Renderer" },
    BASELINE: { name: "documents", entrypoint: "Baseline" },
  };
  // One variant after the other, each warmed up first: the garbage a variant leaves is collected on
  // its own requests' time, not on the next variant's.
  const warm = await withWorkerd(documents, warmBindings, async (request) => {
    const binding = (v) => entrypoint(v).toUpperCase();
    const totals = {};
    for (const v of all) {
      for (let i = 0; i < warmup; i++) await request(query(v, binding(v), calls[key(v)]));
      // workerd renders the very bytes Node does.
      if (v.format !== "json") {
        const { body } = await request({ ...query(v, binding(v), 1), echo: 1 });
        if (!body.equals(Buffer.from(node[key(v)].output)))
          throw new Error(`${key(v)}: workerd's document differs from Node's`);
      }
      totals[key(v)] = [];
      for (let round = 0; round < rounds; round++) {
        totals[key(v)].push((await request(query(v, binding(v), calls[key(v)]))).ms);
        if (round % 3 === 0) empties.push((await request({ n: 0 })).ms);
      }
    }
    return totals;
  });

  const copies = all.flatMap((v) => Array.from({ length: coldCopies }, (_, copy) => ({ ...v, copy })));
  const coldName = (c) => `COLD_${key(c).replace("-", "_")}_${c.copy}`;
  const coldBindings = Object.fromEntries(
    copies.map((c) => [coldName(c), { name: coldName(c), entrypoint: entrypoint(c) }]),
  );
  const cold = await withWorkerd(documents, coldBindings, async (request) => {
    for (let i = 0; i < 5; i++) await request({ n: 0 });
    const samples = Object.fromEntries(all.map((v) => [key(v), []]));
    for (const c of copies.sort((a, b) => a.copy - b.copy)) {
      samples[key(c)].push((await request(query(c, coldName(c), 1))).ms);
      empties.push((await request({ n: 0 })).ms);
    }
    return samples;
  });

  const overhead = median(empties);
  const less = (ms, n = 1) => (ms - overhead) / n;
  return {
    emptyRequestMs: overhead,
    figures: Object.fromEntries(
      all.map((v) => [
        key(v),
        {
          warm: { ...stats(warm[key(v)].map((ms) => less(ms, calls[key(v)]))), calls: calls[key(v)] },
          cold: stats(cold[key(v)].map((ms) => less(ms))),
        },
      ]),
    ),
  };
}

/**
 * The memory of rendering in workerd, from outside: the process's resident memory (RSS), as the heap
 * of an isolate is not readable from JavaScript. Per variant a workerd of its own (the harness and one
 * documents Worker), so that no other variant's garbage is resident: its RSS after start-up and five
 * empty requests is the rest; then the peak RSS (VmHWM, reset at the rest) over the isolate's first
 * render, and over `renders` more, one a request; all in KiB above the rest.
 */
export async function measureWorkerdMemory({ renders }) {
  const documents = await documentsWorker(false);
  const figures = {};
  for (const v of variants()) {
    const bindings = { TARGET: { name: "documents", entrypoint: v.format === "json" ? "Baseline" : "Renderer" } };
    figures[key(v)] = await withWorkerd(documents, bindings, async (request, memory) => {
      const render = { binding: "TARGET", lines: v.lines, format: v.format, n: 1 };
      for (let i = 0; i < 5; i++) await request({ n: 0 });
      const restKiB = memory.rssKiB();
      memory.resetPeak();
      await request(render);
      const firstKiB = memory.peakKiB() - restKiB;
      for (let i = 0; i < renders; i++) await request(render);
      return { restKiB, firstKiB, peakKiB: memory.peakKiB() - restKiB, endKiB: memory.rssKiB() - restKiB };
    });
  }
  return figures;
}

// --- Report.

const round3 = (x) => (x === undefined ? null : Math.round(x * 1000) / 1000);

/** The memory a Worker's isolate may use (developers.cloudflare.com/workers/platform/limits), in KiB. */
export const MEMORY_LIMIT_KIB = 128 * 1024;

/** The memory figures of a variant: Node's (measureNode with memorySamples) and workerd's, in KiB. */
const memoryOf = (node, workerdMemory, k) => ({
  node_allocated_kib: round1(node[k].memory?.allocatedKiB),
  node_peak_kib: round1(node[k].memory?.peakKiB),
  workerd_rss_first_kib: workerdMemory?.[k].firstKiB ?? null,
  workerd_rss_peak_kib: workerdMemory?.[k].peakKiB ?? null,
});

/**
 * One row per size and format: bytes, ms, ratios to the baseline (medians) and to the limit; with
 * memory measured, its figures (KiB) and the share of the isolate's 128 MB they make.
 */
export function renderRows(node, workerd, workerdMemory = null) {
  return SIZES.flatMap((lines) =>
    FORMATS.map((format) => {
      const [k, base] = [`${format}-${lines}`, `json-${lines}`];
      const w = workerd?.figures[k];
      const memory = memoryOf(node, workerdMemory, k);
      const peak = memory.workerd_rss_peak_kib ?? memory.node_peak_kib;
      return {
        lines,
        format,
        bytes: Buffer.byteLength(node[k].output),
        node_median_ms: round3(node[k].median),
        node_p95_ms: round3(node[k].p95),
        node_json_ratio: round3(node[k].median / node[base].median),
        workerd_warm_median_ms: round3(w?.warm.median),
        workerd_warm_p95_ms: round3(w?.warm.p95),
        workerd_json_ratio: w ? round3(w.warm.median / workerd.figures[base].warm.median) : null,
        workerd_cold_median_ms: round3(w?.cold.median),
        workerd_cold_max_ms: round3(w?.cold.max),
        // workerd's figures when there are any: they include the RPC call the API Worker makes.
        warm_of_limit: round3((w?.warm.median ?? node[k].median) / LIMIT_MS),
        warm_p95_of_limit: round3((w?.warm.p95 ?? node[k].p95) / LIMIT_MS),
        cold_of_limit: w ? round3(w.cold.median / LIMIT_MS) : null,
        ...memory,
        node_peak_json_ratio: node[k].memory ? round3(node[k].memory.peakKiB / node[base].memory.peakKiB) : null,
        // workerd's resident peak when measured (it errs high: the process's, not the isolate's heap).
        memory_of_limit: peak === null ? null : round3(peak / MEMORY_LIMIT_KIB),
      };
    }),
  );
}

const round1 = (x) => (x === undefined ? null : Math.round(x * 10) / 10);

function table(rows, node, workerd) {
  const ms = (x) => (x === null || x === undefined ? "-" : x.toFixed(2)).padStart(7);
  const ratio = (x) => (x === null ? "-" : `${x.toFixed(1)}x`).padStart(6);
  const bytes = (n) => String(n).padStart(7);
  const json = (n) => {
    const w = workerd?.figures[`json-${n}`];
    return (
      `${String(n).padStart(5)} json ${bytes(Buffer.byteLength(node[`json-${n}`].output))} ` +
      `${ms(node[`json-${n}`].median)} ${ms(node[`json-${n}`].p95)}        ` +
      `${ms(w?.warm.median)} ${ms(w?.warm.p95)}        ${ms(w?.cold.median)} ${ms(w?.cold.max)}`
    );
  };
  return [
    "                    Node (warm)                 workerd, over RPC: warm      cold             of 10 ms",
    "lines fmt    bytes  median     p95  xJSON   median     p95  xJSON   median     max   warm   cold",
    ...rows.map(
      (r) =>
        `${String(r.lines).padStart(5)} ${r.format.padEnd(4)} ${bytes(r.bytes)} ` +
        `${ms(r.node_median_ms)} ${ms(r.node_p95_ms)} ${ratio(r.node_json_ratio)} ` +
        `${ms(r.workerd_warm_median_ms)} ${ms(r.workerd_warm_p95_ms)} ${ratio(r.workerd_json_ratio)} ` +
        `${ms(r.workerd_cold_median_ms)} ${ms(r.workerd_cold_max_ms)} ` +
        `${r.warm_of_limit.toFixed(2).padStart(6)} ${(r.cold_of_limit?.toFixed(2) ?? "-").padStart(6)}`,
    ),
    "the baseline: JSON.stringify of the same EInvoice (in workerd through the same RPC call)",
    ...SIZES.map(json),
  ];
}

/** Memory, KiB: Node's heap and ArrayBuffers per warm render; workerd's resident peak above its rest. */
function memoryTable(rows, node, workerdMemory, renders) {
  const kib = (x) => (x === null || x === undefined ? "-" : x.toFixed(0)).padStart(9);
  const ratio = (x) => (x === null ? "-" : `${x.toFixed(1)}x`).padStart(6);
  const row = (lines, format, bytes, m, peakRatio, ofLimit) =>
    `${String(lines).padStart(5)} ${format.padEnd(4)} ${String(bytes).padStart(7)} ` +
    `${kib(m.node_allocated_kib)} ${kib(m.node_peak_kib)} ${ratio(peakRatio)} ` +
    `${kib(m.workerd_rss_first_kib)} ${kib(m.workerd_rss_peak_kib)} ${(ofLimit?.toFixed(3) ?? "-").padStart(7)}`;
  return [
    "",
    "memory, KiB: Node, a warm render: V8 heap allocated, peak heap + ArrayBuffers over the start (x JSON);",
    `workerd, a workerd of its own per row: peak RSS over its rest: its first render, then with ${renders} more`,
    `lines fmt    bytes allocated      peak  xJSON     first ${`+${renders}`.padStart(9)}  of 128M`,
    ...rows.map((r) => row(r.lines, r.format, r.bytes, r, r.node_peak_json_ratio, r.memory_of_limit)),
    ...SIZES.map((n) =>
      row(n, "json", Buffer.byteLength(node[`json-${n}`].output), memoryOf(node, workerdMemory, `json-${n}`), null),
    ),
  ];
}

async function main() {
  const { values: flags } = parseArgs({
    options: { quick: { type: "boolean", default: false }, "node-only": { type: "boolean", default: false } },
  });
  const plan = flags.quick
    ? { rounds: 15, workerdRounds: 6, coldCopies: 2, memorySamples: 3, memoryRenders: 5 }
    : { rounds: 100, workerdRounds: 30, coldCopies: 6, memorySamples: 9, memoryRenders: 20 };
  const t0 = Date.now();
  const log = (line) => console.error(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${line}`);
  const machine = { loadAverage: loadavg(), cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length };
  log(
    `Node ${process.version}: ${plan.rounds} samples per size and format, one after the other, each after a ` +
      `warm-up, then the memory of ${plan.memorySamples} renders`,
  );
  const node = await measureNode({ rounds: plan.rounds, memorySamples: plan.memorySamples });
  let [workerd, workerdMemory] = [null, null];
  if (!flags["node-only"] && process.platform === "linux") {
    log(
      `workerd: ${plan.workerdRounds} warm requests per size and format over RPC, ` +
        `${plan.coldCopies} cold isolates each`,
    );
    workerd = await measureWorkerd({ rounds: plan.workerdRounds, coldCopies: plan.coldCopies, node });
    log(`workerd's memory: a workerd per size and format, its first render and ${plan.memoryRenders} more`);
    workerdMemory = await measureWorkerdMemory({ renders: plan.memoryRenders });
  }
  const rows = renderRows(node, workerd, workerdMemory);
  const over = (field) => rows.filter((r) => r[field] > 1).map((r) => `${r.format}-${r.lines}`);
  const verdict = (label, list) =>
    `${label}: ` +
    (list.length ? `over the Free plan's ${LIMIT_MS} ms CPU: ${list.join(", ")}` : `all within ${LIMIT_MS} ms`);
  console.log(
    [
      "",
      `${flags.quick ? "quick" : "full"} run, ${((Date.now() - t0) / 1000).toFixed(0)} s: ` +
        "CPU ms per render of a voucher " +
        `invoice (category O) of 1, 50 and 500 lines; Node ${process.version}` +
        (workerd ? `; workerd less its empty request (${workerd.emptyRequestMs.toFixed(2)} ms)` : "; workerd not run"),
      ...table(rows, node, workerd),
      ...memoryTable(rows, node, workerdMemory, plan.memoryRenders),
      `machine: ${machine.cores} x ${machine.cpu}; ` +
        `load average ${machine.loadAverage.map((x) => x.toFixed(2)).join(", ")} at the start`,
      verdict(`warm, median (${workerd ? "workerd" : "Node"})`, over("warm_of_limit")),
      verdict(`warm, p95 (${workerd ? "workerd" : "Node"})`, over("warm_p95_of_limit")),
      ...(workerd ? [verdict("cold, median (workerd: an isolate's first render)", over("cold_of_limit"))] : []),
      memoryVerdict(rows, workerdMemory),
    ].join("\n"),
  );
  console.log(
    JSON.stringify({
      mode: flags.quick ? "quick" : "full",
      limit_ms: LIMIT_MS,
      over_limit_warm: over("warm_of_limit"),
      over_limit_warm_p95: over("warm_p95_of_limit"),
      over_limit_cold: workerd ? over("cold_of_limit") : null,
      memory_limit_kib: MEMORY_LIMIT_KIB,
      over_memory_limit: over("memory_of_limit"),
      rows,
      json_baseline: Object.fromEntries(
        SIZES.map((n) => [
          n,
          {
            bytes: Buffer.byteLength(node[`json-${n}`].output),
            node_median_ms: round3(node[`json-${n}`].median),
            workerd_warm_median_ms: round3(workerd?.figures[`json-${n}`].warm.median),
            workerd_cold_median_ms: round3(workerd?.figures[`json-${n}`].cold.median),
            ...memoryOf(node, workerdMemory, `json-${n}`),
          },
        ]),
      ),
      empty_request_ms: round3(workerd?.emptyRequestMs),
      node: process.version,
      load_average_start: machine.loadAverage.map(round3),
    }),
  );
}

function memoryVerdict(rows, workerdMemory) {
  const largest = rows.reduce((a, b) => (b.memory_of_limit > a.memory_of_limit ? b : a));
  return (
    `memory (${workerdMemory ? "workerd's peak RSS" : "Node's peak heap"}): at most ` +
    `${(100 * largest.memory_of_limit).toFixed(1)} % of an isolate's 128 MB (${largest.format}-${largest.lines})`
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
