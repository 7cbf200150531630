// `npm run bench` (node bench/run.mjs [--quick] [--port <base>] [--only <parts>] [--startup-ref <ref> | <ref>]):
// the service against bare Workers on the same wrangler/workerd over loopback, its D1 cost per request,
// its D1 round trips per endpoint on a delayed D1 (the latency scenario), its bundle size and start-up
// time against another commit's (A/B in turns). `--only` runs some parts: startup, pairs (the load pairs
// and the probes), latency; comma-separated.
// BENCHMARKS.md explains the figures. Prints the bars, then one JSON object of every figure; progress
// goes to stderr.
import { mkdtempSync, readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startWorker } from "../scripts/local-worker.mjs";
import { isFree } from "../scripts/ports.mjs";
import { call, tokenOf } from "./http.mjs";
import { checkCoverage, followWorkerLog, latencyFigures, latencySummary, measureLatency } from "./latency.mjs";
import { alternate, summarize } from "./load.mjs";
import { d1Cost, LogLines, PROBE_PREFIX } from "./log-lines.mjs";
import { median, startupAgainst } from "./measure.mjs";
import { writeCardOrderSeed as writeSeed } from "../scripts/seed-invoices.mjs";
import { serviceListStatements } from "./service-sql.mjs";
import { runBench } from "./lifecycle.mjs";

process.env.WRANGLER_SEND_METRICS = "false";

const { values: flags, positionals } = parseArgs({
  // A ref alone (`npm run bench:startup -- main`) is the start-up's other side.
  allowPositionals: true,
  options: {
    quick: { type: "boolean", default: false },
    port: { type: "string", default: "8870" },
    // Leaves out the latency scenario, e.g. while bench/latency.mjs lacks a case for a new operation.
    "no-latency": { type: "boolean", default: false },
    only: { type: "string" },
    // The start-up is measured against this commit's, profiled in turns (BENCHMARKS.md, startup_ms).
    "startup-ref": { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (flags.help) {
  // The usage is this file's opening comment.
  const source = readFileSync(new URL(import.meta.url), "utf8");
  console.log(source.slice(0, source.indexOf("\nimport ")).replaceAll(/^\/\/ ?/gm, ""));
  process.exit(0);
}
flags["startup-ref"] ??= positionals[0] ?? "HEAD~1";
const PARTS = ["startup", "pairs", "latency"];
const only = flags.only?.split(",");
for (const part of only ?? [])
  if (!PARTS.includes(part)) throw new Error(`--only takes ${PARTS.join(", ")} (comma-separated), not ${part}`);
/** Whether this run measures `part`. */
const runs = (part) => (only ? only.includes(part) : part !== "latency" || !flags["no-latency"]);

// --quick must finish within a minute on a busy 2-core machine; a full run trades time for rounds.
const PLAN = flags.quick
  ? {
      rounds: 3,
      seconds: 1,
      warmup: 1,
      startupRuns: 1,
      latencyRounds: 3,
    }
  : {
      rounds: 8,
      seconds: 4,
      warmup: 3,
      startupRuns: 15,
      latencyRounds: 10,
    };
// One connection: what one client waits (the other settings: BENCHMARKS.md, "Benches removed").
const CLIENT = 1;
const PAGE_SIZE = 25;
// Far above what the load can send in the limiter's 60-second period; raw-d1's limiter gets the same.
const RATE_LIMIT = 100_000_000;
// Where the raw-d1 baseline puts the customer of its request among the values the service bound.
const CUSTOMER_MARK = "bench:customer";
const SCOPES = "card_orders:read card_orders:write";
// A distant primary's round trip, far above what the service adds, so that p50 / delay rounds to the round trips.
const D1_DELAY_MS = 40;

const work = mkdtempSync(join(tmpdir(), "bench-"));
// wrangler logs every inspector event to a debug log: keep those hundreds of MB in the scratch directory.
const wranglerEnv = { WRANGLER_LOG_PATH: join(work, "wrangler-logs") };

const t0 = Date.now();
const log = (line) => console.error(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${line}`);

async function main() {
  const wrangler = JSON.parse(
    readFileSync(new URL("../node_modules/wrangler/package.json", import.meta.url), "utf8"),
  ).version;
  const machine = { loadAverage: loadavg(), cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, wrangler };
  const seed = writeSeed(join(work, "seed.sql"));
  checkSameRouting("wrangler.toml", ["bench/static/wrangler.toml", "bench/raw-d1/wrangler.toml"]);
  const size = runs("startup") ? measureBuild() : null;
  if (!runs("pairs") && !runs("latency")) return report({ size, machine, seed });
  const workers = await startWorkers(seed, await listStatements());
  // Before minutes of load, not after: the scenario stops on a case for an operation the API lacks.
  const uncovered = runs("latency") ? await checkCoverage(workers.latency.url) : [];
  let pairs = {};
  if (runs("pairs")) {
    const tokens = await signTokens(workers.secret, seed.listCustomer);
    const targets = targetsFor(workers, seed, tokens);
    const cost = await probe(workers, targets, seed);
    pairs = { cost, load: await runLoad(targets) };
  }
  const latency = runs("latency") ? await runLatency(workers) : null;
  report({ size, ...pairs, seed, latency, uncovered, machine });
}

/** The service's own statements for page 1 of a card-order list (bench/service-sql.mjs), for raw-d1. */
async function listStatements() {
  const statements = await serviceListStatements({ customer: CUSTOMER_MARK, pageSize: PAGE_SIZE });
  const marks = statements.flatMap((s) => s.params).filter((value) => value === CUSTOMER_MARK).length;
  if (statements.length !== 2 || marks !== 2)
    throw new Error(`the service's list is no longer a page and its total, by customer: ${JSON.stringify(statements)}`);
  log("the raw-d1 baseline sends the service's list statements and values, read off src/db/card-orders.ts");
  return statements;
}

/** The [assets] table of a wrangler config: its keys and values, `directory` made absolute. */
function assetsTable(config) {
  const path = resolve(fileURLToPath(new URL("..", import.meta.url)), config);
  const table = /^\[assets\]\n((?:(?!\[).*\n?)*)/m.exec(readFileSync(path, "utf8"))?.[1] ?? "";
  const entries = table
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter(Boolean)
    .map((line) => line.split(/\s*=\s*/, 2))
    .map(([key, value]) => [key, key === "directory" ? resolve(dirname(path), JSON.parse(value)) : value]);
  return JSON.stringify(Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b))));
}

/** The baselines sit behind the service's asset layer (BENCHMARKS.md, "The asset layer"). */
function checkSameRouting(service, baselines) {
  const expected = assetsTable(service);
  for (const baseline of baselines)
    if (assetsTable(baseline) !== expected)
      throw new Error(`${baseline}: its [assets] table is not ${service}'s (${expected})`);
}

async function runLatency(workers) {
  log(
    "latency: every operation once per round (POSTs also with an Idempotency-Key) " +
      `on D1 delayed ${D1_DELAY_MS} ms per call, ${PLAN.latencyRounds} rounds after a warm-up`,
  );
  return latencyFigures(
    await measureLatency({
      url: workers.latency.url,
      secret: workers.secret,
      rounds: PLAN.latencyRounds,
      log,
      logLines: workers.latencyLines,
    }),
    D1_DELAY_MS,
  );
}

function measureBuild() {
  log(
    "building the service (wrangler deploy --dry-run --minify) and that of " +
      `${flags["startup-ref"]}, profiling their start-up in turns, ${PLAN.startupRuns}x each (wrangler check startup)`,
  );
  const { mine, theirs, ratio, gzipKiB } = startupAgainst(flags["startup-ref"], {
    runs: PLAN.startupRuns,
    env: wranglerEnv,
  });
  return {
    gzipKiB,
    startupMs: mine.length ? median(mine) : undefined,
    startupRuns: mine,
    ref: flags["startup-ref"],
    refStartupMs: theirs.length ? median(theirs) : undefined,
    refStartupRuns: theirs,
    startupRatio: ratio,
  };
}

async function startWorkers(seed, statements) {
  const base = Number(flags.port);
  const ports = { service: base, static: base + 1, rawD1: base + 2, latency: base + 3 };
  for (const port of Object.values(ports)) await assertFree(port), await assertFree(port + 1000);
  const secret = crypto.randomUUID() + crypto.randomUUID();
  // Cursors in list links are HMAC-signed with a key derived from APP_SECRET; any value will do.
  const serviceVars = { JWT_SECRET: secret, APP_SECRET: crypto.randomUUID() + crypto.randomUUID() };
  const seedFile = join(work, "seed.sql");
  log(
    `seeding ${seed.orders} card orders over ${seed.customers} customers into both databases; ` +
      `starting the Workers on ports ${Object.values(ports).join(", ")}`,
  );
  log(
    `the service's rate limit is raised to ${RATE_LIMIT} requests per 60 s per principal, ` +
      "so that the bench measures the service, not the limiter",
  );
  // All three without wrangler dev's inspector proxy, which bills each log line to the CLI (BENCHMARKS.md).
  const common = { env: { ...wranglerEnv, WORKER_HOST_KEEP: PROBE_PREFIX }, inspector: false };
  const [serviceLines, latencyLines] = [new LogLines(), new LogLines()];
  // The baselines write the service's request log line too (bench/request-log.js); the probe reads it.
  const baselineLines = { static: new LogLines(), rawD1: new LogLines() };
  const [service, staticWorker, rawD1, latency] = await Promise.all([
    runs("pairs") &&
      startWorker({
        ...common,
        name: "bench-service",
        port: ports.service,
        rateLimit: RATE_LIMIT,
        vars: serviceVars,
        seed: seedFile,
        onLine: serviceLines.take,
      }),
    runs("pairs") &&
      startWorker({
        ...common,
        name: "bench-static",
        port: ports.static,
        config: "bench/static/wrangler.toml",
        d1: false,
        readyPath: "/",
        onLine: baselineLines.static.take,
      }),
    // The service's rate limit, and its list statements (bench/raw-d1/worker.js).
    runs("pairs") &&
      startWorker({
        ...common,
        name: "bench-raw-d1",
        port: ports.rawD1,
        config: "bench/raw-d1/wrangler.toml",
        readyPath: "/?limiter=off",
        seed: seedFile,
        rateLimit: RATE_LIMIT,
        vars: { LIST_STATEMENTS: JSON.stringify(statements), CUSTOMER: CUSTOMER_MARK },
        onLine: baselineLines.rawD1.take,
      }),
    // The service and jobs Worker on a delaying D1, under wrangler dev (its session shares D1 and queues).
    runs("latency") &&
      startWorker({
        ...common,
        inspector: true,
        name: "bench-latency",
        port: ports.latency,
        main: "bench/wrapped-d1/worker.ts",
        companionMains: { "wrangler.jobs.toml": "bench/wrapped-d1/jobs.ts" },
        vars: { ...serviceVars, D1_DELAY_MS: String(D1_DELAY_MS) },
        logFile: join(work, "latency-worker.log"),
      }),
  ]);
  if (latency) followWorkerLog(join(work, "latency-worker.log"), latencyLines.take);
  return { service, static: staticWorker, rawD1, latency, secret, serviceLines, latencyLines, baselineLines };
}

// Another server on one of these ports would answer the readiness check in a Worker's stead.
async function assertFree(port) {
  if (!(await isFree(port)))
    throw new Error(
      `port ${port} is in use; pass --port <base> (the bench uses base..base+4 and base+1000..base+1004)`,
    );
}

async function signTokens(secret, customer) {
  return {
    reader: await tokenOf(secret, { sub: "bench", customer_id: customer, scope: SCOPES }),
    // New orders go to a customer of their own, so the list page stays the same all along.
    writer: await tokenOf(secret, { sub: "bench", customer_id: "bench-writer", scope: SCOPES }),
  };
}

function targetsFor({ service, static: staticWorker, rawD1 }, seed, tokens) {
  const auth = (token) => ({ Authorization: `Bearer ${token}` });
  return {
    health: { url: `${service.url}/health` },
    static: { url: `${staticWorker.url}/` },
    list: { url: `${service.url}/card_orders?page_size=${PAGE_SIZE}`, headers: auth(tokens.reader) },
    rawList: { url: `${rawD1.url}/?customer=${seed.listCustomer}` },
    // The same without the rate limiter's call: what the limiter costs on its own, in the same rounds.
    rawListUnlimited: { url: `${rawD1.url}/?customer=${seed.listCustomer}&limiter=off` },
    get: { url: `${service.url}/card_orders/${seed.newestOrderId}`, headers: auth(tokens.reader) },
    create: {
      url: `${service.url}/card_orders`,
      method: "POST",
      headers: { ...auth(tokens.writer), "Content-Type": "application/json" },
      body: JSON.stringify({ voucher_category: "meal", payment_method: "bank_transfer", description: "bench" }),
    },
  };
}

const send = (target, requestId) =>
  call(target.url, {
    method: target.method,
    headers: target.headers,
    json: target.body && JSON.parse(target.body),
    requestId,
  });

const EXPECTED_STATUS = { list: 200, get: 200, create: 201 };

/** One request of each kind, checked, with its logged D1 cost; the baseline must serve the service's page. */
async function probe(workers, targets, seed) {
  const kinds = Object.keys(EXPECTED_STATUS);
  const answers = {};
  for (const kind of kinds) answers[kind] = await send(targets[kind], `${PROBE_PREFIX}${kind}`);
  for (const kind of kinds) {
    if (answers[kind].status !== EXPECTED_STATUS[kind])
      throw new Error(`probe ${kind}: ${answers[kind].status} ${JSON.stringify(answers[kind].body)}`);
  }
  const { meta, data } = answers.list.body;
  if (meta.total_entries !== seed.orders / seed.customers)
    throw new Error(`total_entries is ${meta.total_entries}: the seed did not load as planned`);
  const raw = (await send(targets.rawList)).body;
  const ids = (rows) => rows.map((row) => row.id).join();
  if (ids(raw.data) !== ids(data) || raw.total_entries !== meta.total_entries)
    throw new Error("the raw-d1 baseline does not serve the page the service serves");

  const costs = {};
  for (const kind of kinds) costs[kind] = d1Cost(await workers.serviceLines.get(`${PROBE_PREFIX}${kind}`));
  await checkSameLogLine(workers, targets, await workers.serviceLines.get(`${PROBE_PREFIX}list`));
  return costs;
}

/** The baselines' log line has the service's keys in its order (BENCHMARKS.md, "The request log line"). */
async function checkSameLogLine(workers, targets, serviceLine) {
  const keys = (line) => Object.keys(line).join();
  const sizes = [`service ${Buffer.byteLength(JSON.stringify(serviceLine))}`];
  for (const [name, target] of [
    ["static", targets.static],
    ["rawD1", targets.rawList],
  ]) {
    const id = `${PROBE_PREFIX}baseline-${name}`;
    await send(target, id);
    const line = await workers.baselineLines[name].get(id);
    if (keys(line) !== keys(serviceLine))
      throw new Error(
        `the ${name} baseline logs ${keys(line)}, the service ${keys(serviceLine)}: bench/request-log.js`,
      );
    sizes.push(`${name} ${Buffer.byteLength(JSON.stringify(line))}`);
  }
  log(`every baseline writes the service's request log line (bytes with a probe id: ${sizes.join(", ")})`);
}

async function runLoad(targets) {
  const plan = { rounds: PLAN.rounds, seconds: PLAN.seconds, warmup: PLAN.warmup, connections: CLIENT };
  log(
    `load, ${CLIENT} connection: each pair alternates service/baseline ` +
      `${plan.rounds}x${plan.seconds} s per side after ${plan.warmup} s warm-up`,
  );
  log("  GET /health vs static");
  const health = await alternate({ service: targets.health, baseline: targets.static }, plan);
  // raw-d1 without its limiter call takes a turn too: what the limiter costs alone.
  log(`  GET /card_orders?page_size=${PAGE_SIZE} vs raw-d1 (rate limiter, D1 session) vs raw-d1 without the limiter`);
  const list = await alternate(
    { service: targets.list, baseline: targets.rawList, unlimited: targets.rawListUnlimited },
    plan,
  );
  return { client: { health, list } };
}

/** Service over baseline, the median of the rounds' ratios (one noisy round does not decide). */
function pairRatio(service, baseline) {
  const ratios = service.map((round, i) => rps(round) / rps(baseline[i]));
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

// Issue 11 part 4 and issue 36 point 4: the bars of the full run, judged with one connection.
// The bundle's is test:build's guard against an accidental large import (128 KiB gzip), not a budget.
const BARS = {
  healthRatio: 0.95,
  listRatio: 0.9,
  bundleKiB: 128,
  startupMs: 10,
  readRoundTrips: 1,
  writeRoundTrips: 2,
};

function report({ size, cost, load, seed, latency, uncovered = [], machine }) {
  const client = load && {
    health: pairRatio(load.client.health.service, load.client.health.baseline),
    list: pairRatio(load.client.list.service, load.client.list.baseline),
  };
  // raw-d1 with its limiter call over the same Worker without it (round by round, the median of the
  // difference in one connection's time a request, one over its req/s), and the service against the latter.
  const { baseline: limited, unlimited } = load?.client.list ?? {};
  const limiter = load && {
    ratio: pairRatio(limited, unlimited),
    micros: median(limited.map((round, i) => 1e6 / rps(round) - 1e6 / rps(unlimited[i]))),
    serviceRatio: pairRatio(load.client.list.service, unlimited),
  };
  const trips = latency
    ? latencySummary(latency)
    : { round_trips: null, max_read_round_trips: null, max_write_round_trips: null, rows_written: null };
  const within = (value, bar, atLeast) =>
    value === null || value === undefined
      ? "not measured"
      : `${round3(value)} ${(atLeast ? value >= bar : value <= bar) ? "met" : "MISSED"} (${atLeast ? ">=" : "<="} ${bar})`;
  console.log(
    `bars (1 connection): health_ratio ${within(client?.health.median, BARS.healthRatio, true)}; ` +
      `list_ratio ${within(client?.list.median, BARS.listRatio, true)}; ` +
      `bundle KiB ${within(size?.gzipKiB, BARS.bundleKiB)}; startup ms ${within(size?.startupMs, BARS.startupMs)}; ` +
      `read round trips ${within(trips.max_read_round_trips, BARS.readRoundTrips)}; ` +
      `write round trips ${within(trips.max_write_round_trips, BARS.writeRoundTrips)}` +
      (uncovered.length ? ` (operations without a case, not measured: ${uncovered.join(", ")})` : ""),
  );
  // Each scenario's req/s, p50 and p99 over all its rounds.
  const figures = (rounds) => {
    const s = summarize(rounds);
    return { rps: Math.round(s.rps), p50_ms: s.p50, p99_ms: s.p99 };
  };
  const orNull = (x, f) => (x === undefined || x === null ? null : f(x));
  console.log(
    JSON.stringify({
      health_ratio: load ? round3(client.health.median) : null,
      list_ratio: load ? round3(client.list.median) : null,
      limiter_ratio: load ? round3(limiter.ratio.median) : null,
      limiter_us: load ? Math.round(limiter.micros) : null,
      list_ratio_without_limiter: load ? round3(limiter.serviceRatio.median) : null,
      // Per ratio the spread of its rounds, which says how far a noisy machine moved it.
      ratio_rounds: load && {
        health: [round3(client.health.min), round3(client.health.max)],
        list: [round3(client.list.min), round3(client.list.max)],
        limiter: [round3(limiter.ratio.min), round3(limiter.ratio.max)],
      },
      rows_read_list: cost?.list.rowsRead ?? null,
      rows_read_get: cost?.get.rowsRead ?? null,
      rows_read_create: cost?.create.rowsRead ?? null,
      d1_cost: cost ?? null,
      bundle_gzip_kib: size ? round3(size.gzipKiB) : null,
      startup_ms: orNull(size?.startupMs, round3),
      startup_ref: size?.ref ?? null,
      startup_ref_ms: orNull(size?.refStartupMs, round3),
      startup_ratio: orNull(size?.startupRatio, round3),
      startup_runs: size ? { mine: size.startupRuns.map(round3), ref: size.refStartupRuns.map(round3) } : null,
      mode: flags.quick ? "quick" : "full",
      only: only ?? null,
      seconds: Math.round((Date.now() - t0) / 1000),
      seed: { orders: seed.orders, customers: seed.customers },
      // One connection: req/s, p50 and p99 of each side.
      scenarios: load && {
        health: figures(load.client.health.service),
        static: figures(load.client.health.baseline),
        list: figures(load.client.list.service),
        raw_d1_list: figures(load.client.list.baseline),
        raw_d1_list_unlimited: figures(unlimited),
      },
      d1_delay_ms: D1_DELAY_MS,
      operations_without_case: latency ? uncovered : null,
      ...trips,
      latency_p50_ms: latency && Object.fromEntries(latency.map((f) => [f.name, Math.round(f.p50 * 10) / 10])),
      machine: { cores: machine.cores, cpu: machine.cpu, node: process.version, wrangler: machine.wrangler },
      load_average_start: machine.loadAverage.map(round3),
      load_average_end: loadavg().map(round3),
    }),
  );
}

const rps = (round) => round.requests / round.seconds;
const round3 = (x) => Math.round(x * 1000) / 1000;

runBench(main, { work, log });
