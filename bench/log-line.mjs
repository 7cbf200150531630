// `node bench/log-line.mjs [--quick] [--rounds <n>] [--seconds <s>] [--port <base>]`: what the request
// log line costs each side of the bench's two pairs. The health pair and the list pair of `npm run
// bench` (one connection), each side twice: as the bench runs it (the line on) and with its log line
// off (bench/log-off: console.log writes nothing), all four taking turns. Prints the pairs with the
// line on both sides (what `npm run bench` now measures), with the line on the service's side only
// (what it measured before the baselines wrote the line), with the line off on both sides, and what
// the line costs each Worker. The last line is one JSON object (BENCHMARKS.md, "The request log line").
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sign } from "hono/jwt";
import { startWorker } from "../scripts/local-worker.mjs";
import { isFree } from "../scripts/ports.mjs";
import { call } from "./http.mjs";
import { runBench } from "./lifecycle.mjs";
import { alternate, turnsFromArgs } from "./load.mjs";
import { LogLines, PROBE_PREFIX } from "./log-lines.mjs";
import { median } from "./measure.mjs";
import { writeSeed } from "./seed.mjs";

process.env.WRANGLER_SEND_METRICS = "false";
const { quick: QUICK, port: BASE_PORT, plan: PLAN } = turnsFromArgs(9070);
const PAGE_SIZE = 25;
const work = mkdtempSync(join(tmpdir(), "log-line-"));
const t0 = Date.now();
const log = (line) => console.error(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${line}`);

/** The six Workers: each of the three as the bench runs it (`on`) and with its log line off. */
const WORKERS = [
  { side: "service", config: "wrangler.toml" },
  { side: "service_off", config: "wrangler.toml", main: "bench/log-off/service.ts" },
  { side: "static", config: "bench/static/wrangler.toml", readyPath: "/", d1: false },
  {
    side: "static_off",
    config: "bench/static/wrangler.toml",
    main: "bench/log-off/static.js",
    readyPath: "/",
    d1: false,
  },
  { side: "raw_d1", config: "bench/raw-d1/wrangler.toml", readyPath: "/" },
  { side: "raw_d1_off", config: "bench/raw-d1/wrangler.toml", main: "bench/log-off/raw-d1.js", readyPath: "/" },
];

async function main() {
  const loadAverage = loadavg();
  const base = BASE_PORT;
  for (let port = base; port < base + WORKERS.length; port++)
    if (!(await isFree(port)) || !(await isFree(port + 1000)))
      throw new Error(`port ${port} or ${port + 1000} is in use; pass --port <base>`);
  const seed = writeSeed(join(work, "seed.sql"));
  const secret = crypto.randomUUID() + crypto.randomUUID();
  const vars = { JWT_SECRET: secret, APP_SECRET: crypto.randomUUID() + crypto.randomUUID() };
  log(`seeding ${seed.orders} card orders; starting ${WORKERS.map((w) => w.side).join(", ")} from port ${base}`);
  const common = {
    inspector: false,
    env: { WRANGLER_LOG_PATH: join(work, "wrangler-logs"), WORKER_HOST_KEEP: PROBE_PREFIX },
  };
  const lines = Object.fromEntries(WORKERS.map(({ side }) => [side, new LogLines()]));
  const started = await Promise.all(
    WORKERS.map(({ side, config, main, readyPath, d1 }, i) =>
      startWorker({
        ...common,
        name: `log-line-${side.replaceAll("_", "-")}`,
        port: base + i,
        config,
        main,
        readyPath,
        d1,
        seed: d1 === false ? undefined : join(work, "seed.sql"),
        ...(side.startsWith("service") ? { rateLimit: 100_000_000, vars } : {}),
        onLine: lines[side].take,
      }),
    ),
  );
  const url = Object.fromEntries(WORKERS.map(({ side }, i) => [side, started[i].url]));
  const token = await sign(
    {
      sub: "bench",
      customer_id: seed.listCustomer,
      scope: "card_orders:read",
      exp: Math.floor(Date.now() / 1000) + 3600,
    },
    secret,
    "HS256",
  );
  const auth = { Authorization: `Bearer ${token}` };
  const targets = {
    health: {
      service: { url: `${url.service}/health` },
      service_off: { url: `${url.service_off}/health` },
      static: { url: `${url.static}/` },
      static_off: { url: `${url.static_off}/` },
    },
    list: {
      service: { url: `${url.service}/card_orders?page_size=${PAGE_SIZE}`, headers: auth },
      service_off: { url: `${url.service_off}/card_orders?page_size=${PAGE_SIZE}`, headers: auth },
      raw_d1: { url: `${url.raw_d1}/?customer=${seed.listCustomer}` },
      raw_d1_off: { url: `${url.raw_d1_off}/?customer=${seed.listCustomer}` },
    },
  };
  const shapes = await probe(targets, lines);

  const load = {};
  for (const pair of ["health", "list"]) {
    log(
      `${pair}: ${Object.keys(targets[pair]).join(", ")} in turns, ${PLAN.rounds} x ${PLAN.seconds} s each ` +
        `after ${PLAN.warmup} s warm-up, ${PLAN.connections} connection`,
    );
    load[pair] = await alternate(targets[pair], PLAN);
  }
  report(load, shapes, loadAverage);
}

/**
 * One request to each side with a probe id: each `on` side writes one line, with the service's keys
 * in the service's order; no `off` side writes one. Returns the lines' sizes in bytes.
 */
async function probe(targets, lines) {
  const sizes = {};
  const probed = {};
  for (const pair of ["health", "list"]) {
    for (const [side, target] of Object.entries(targets[pair])) {
      const id = `${PROBE_PREFIX}${pair}-${side}`;
      const answer = await call(target.url, { headers: target.headers, requestId: id });
      if (answer.status !== 200) throw new Error(`probe ${side}: ${answer.status} ${JSON.stringify(answer.body)}`);
      probed[`${pair}/${side}`] = { side, id };
    }
  }
  const keys = (line) => Object.keys(line).join();
  let expected;
  for (const [name, { side, id }] of Object.entries(probed)) {
    if (side.endsWith("_off")) continue;
    const line = await lines[side].get(id);
    expected ??= keys(line);
    if (keys(line) !== expected) throw new Error(`${side} logs ${keys(line)}, not the service's ${expected}`);
    sizes[name] = Buffer.byteLength(JSON.stringify(line));
  }
  // The off sides' lines would have come by now, with those of the on sides sent before them.
  for (const [name, { side, id }] of Object.entries(probed)) {
    if (!side.endsWith("_off")) continue;
    const line = await lines[side].get(id, 2000).catch(() => undefined);
    if (line) throw new Error(`${name} wrote its log line: the log-off entry point did not take effect`);
  }
  log(
    `log lines (keys ${expected}), bytes with a probe id of its own: ` +
      Object.entries(sizes)
        .map(([name, bytes]) => `${name} ${bytes}`)
        .join(", "),
  );
  return sizes;
}

function report(load, sizes, loadAverage) {
  const rps = (round) => round.requests / round.seconds;
  const sideRps = (rounds) => rounds.reduce((s, r) => s + r.requests, 0) / rounds.reduce((s, r) => s + r.seconds, 0);
  // Median of the per-round ratios, as `npm run bench` computes its ratios.
  const ratio = (pair, a, b) => median(load[pair][a].map((round, i) => rps(round) / rps(load[pair][b][i])));
  const usPerRequest = (pair, side) => 1e6 / sideRps(load[pair][side]);
  const figures = {};
  for (const [pair, baseline] of [
    ["health", "static"],
    ["list", "raw_d1"],
  ]) {
    const sides = Object.keys(load[pair]);
    figures[pair] = {
      rps: Object.fromEntries(sides.map((side) => [side, Math.round(sideRps(load[pair][side]))])),
      // The bench's pair now: the log line on both sides.
      ratio_both_on: ratio(pair, "service", baseline),
      // As the bench measured before the baselines wrote the line: on the service's side only.
      ratio_service_on_only: ratio(pair, "service", `${baseline}_off`),
      // The experiment: the log line off on both sides.
      ratio_both_off: ratio(pair, "service_off", `${baseline}_off`),
      // Each Worker with its line on over the same Worker with it off, and the difference per request.
      service_on_over_off: ratio(pair, "service", "service_off"),
      baseline_on_over_off: ratio(pair, baseline, `${baseline}_off`),
      service_line_us: usPerRequest(pair, "service") - usPerRequest(pair, "service_off"),
      baseline_line_us: usPerRequest(pair, baseline) - usPerRequest(pair, `${baseline}_off`),
    };
    const f = figures[pair];
    console.error(`${pair}, req/s: ${sides.map((side) => `${side} ${f.rps[side]}`).join(", ")}`);
    for (const side of sides)
      console.error(`  ${side.padEnd(12)} by round: ${load[pair][side].map((r) => rps(r).toFixed(0)).join(" ")}`);
    console.error(
      `  service/${baseline}: both logging ${f.ratio_both_on.toFixed(3)}, ` +
        `the service alone logging ${f.ratio_service_on_only.toFixed(3)}, neither ${f.ratio_both_off.toFixed(3)}`,
    );
    console.error(
      `  the log line: service ${f.service_on_over_off.toFixed(3)} of its req/s (${f.service_line_us.toFixed(0)} us ` +
        `a request), ${baseline} ${f.baseline_on_over_off.toFixed(3)} (${f.baseline_line_us.toFixed(0)} us)`,
    );
  }
  const round3 = (x) => (typeof x === "number" ? Math.round(x * 1000) / 1000 : x);
  const rounded = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round3(v)]));
  console.log(
    JSON.stringify({
      mode: QUICK ? "quick" : "full",
      rounds: PLAN.rounds,
      seconds: PLAN.seconds,
      health: rounded(figures.health),
      list: rounded(figures.list),
      line_bytes: sizes,
      load_average_start: loadAverage.map(round3),
    }),
  );
}

runBench(main, { work, log });
