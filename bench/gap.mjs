// `node bench/gap.mjs [--quick] [--rounds <n>] [--seconds <s>] [--port <base>]`: what the service pays
// per request beyond its baselines, outside its own JavaScript (`npm run bench:isolate` measures that).
// Every Worker here writes the request log line. One connection, all sides of a pair taking turns:
//   health: static; the static Worker on the service's config (wrangler.toml: its bindings, the jobs
//           and documents Workers beside it, its asset layer); the service
//   list:   raw-d1; raw-d1 on the service's config; + a D1 session and its bookmark; + one rate limiter
//           call (bench/gap/raw-d1.js); the service
// Prints each side's req/s and time per request, each step against the one before; the last line is
// one JSON object (BENCHMARKS.md, "The request log line").
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sign } from "hono/jwt";
import { startWorker } from "../scripts/local-worker.mjs";
import { isFree } from "../scripts/ports.mjs";
import { call } from "./http.mjs";
import { runBench } from "./lifecycle.mjs";
import { alternate, turnsFromArgs } from "./load.mjs";
import { PROBE_PREFIX } from "./log-lines.mjs";
import { median } from "./measure.mjs";
import { writeSeed } from "./seed.mjs";

process.env.WRANGLER_SEND_METRICS = "false";
const { quick: QUICK, port: BASE_PORT, plan: PLAN } = turnsFromArgs(9170);
const PAGE_SIZE = 25;
const RATE_LIMIT = 100_000_000;
const work = mkdtempSync(join(tmpdir(), "gap-"));
const t0 = Date.now();
const log = (line) => console.error(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${line}`);

// On the service's config, each with the service's raised rate limit and vars.
const hosted = (main, steps) => ({
  main,
  config: "wrangler.toml",
  readyPath: "/",
  hosted: true,
  ...(steps === undefined ? {} : { vars: { GAP_STEPS: steps } }),
});
const WORKERS = [
  { side: "static", config: "bench/static/wrangler.toml", readyPath: "/", d1: false },
  { side: "static_hosted", ...hosted("bench/static/worker.js") },
  { side: "service", config: "wrangler.toml", hosted: true },
  { side: "raw_d1", config: "bench/raw-d1/wrangler.toml", readyPath: "/" },
  { side: "raw_d1_hosted", ...hosted("bench/gap/raw-d1.js", "") },
  { side: "raw_d1_session", ...hosted("bench/gap/raw-d1.js", "session") },
  { side: "raw_d1_limited", ...hosted("bench/gap/raw-d1.js", "session limit") },
];
const PAIRS = {
  health: ["static", "static_hosted", "service"],
  list: ["raw_d1", "raw_d1_hosted", "raw_d1_session", "raw_d1_limited", "service"],
};

async function main() {
  const loadAverage = loadavg();
  const base = BASE_PORT;
  for (let port = base; port < base + WORKERS.length; port++)
    if (!(await isFree(port)) || !(await isFree(port + 1000)))
      throw new Error(`port ${port} or ${port + 1000} is in use; pass --port <base>`);
  const seed = writeSeed(join(work, "seed.sql"));
  const secret = crypto.randomUUID() + crypto.randomUUID();
  const serviceVars = { JWT_SECRET: secret, APP_SECRET: crypto.randomUUID() + crypto.randomUUID() };
  log(`seeding ${seed.orders} card orders; starting ${WORKERS.map((w) => w.side).join(", ")} from port ${base}`);
  const env = { WRANGLER_LOG_PATH: join(work, "wrangler-logs"), WORKER_HOST_KEEP: PROBE_PREFIX };
  const started = await Promise.all(
    WORKERS.map(({ side, hosted, vars, d1, ...options }, i) =>
      startWorker({
        ...options,
        inspector: false,
        env,
        name: `gap-${side.replaceAll("_", "-")}`,
        port: base + i,
        d1,
        seed: d1 === false ? undefined : join(work, "seed.sql"),
        ...(hosted ? { rateLimit: RATE_LIMIT, vars: { ...serviceVars, ...vars } } : {}),
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
  const target = (side, pair) =>
    side === "service"
      ? pair === "health"
        ? { url: `${url.service}/health` }
        : { url: `${url.service}/card_orders?page_size=${PAGE_SIZE}`, headers: { Authorization: `Bearer ${token}` } }
      : { url: `${url[side]}/${pair === "list" ? `?customer=${seed.listCustomer}` : ""}` };
  const targets = Object.fromEntries(
    Object.entries(PAIRS).map(([pair, sides]) => [pair, Object.fromEntries(sides.map((s) => [s, target(s, pair)]))]),
  );
  // One request each: every side answers 200; what it sends back, in bytes and headers.
  const answers = {};
  for (const [pair, sides] of Object.entries(targets)) {
    for (const [side, t] of Object.entries(sides)) {
      const response = await fetch(t.url, { headers: t.headers });
      const body = await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${pair} ${side}: ${response.status}`);
      answers[`${pair}/${side}`] = { body_bytes: body.byteLength, headers: [...response.headers.keys()].length };
    }
  }
  const page = await call(targets.list.service.url, { headers: targets.list.service.headers });
  const raw = await call(targets.list.raw_d1_limited.url);
  if (page.body.data.map((o) => o.id).join() !== raw.body.data.map((o) => o.id).join())
    throw new Error("the raw-d1 variants do not serve the page the service serves");
  log(
    `answers (body bytes, headers): ${Object.entries(answers)
      .map(([name, a]) => `${name} ${a.body_bytes} B, ${a.headers}`)
      .join("; ")}`,
  );
  const load = {};
  for (const [pair, sides] of Object.entries(targets)) {
    log(`${pair}: ${Object.keys(sides).join(", ")} in turns, ${PLAN.rounds} x ${PLAN.seconds} s each, 1 connection`);
    load[pair] = await alternate(sides, PLAN);
  }
  report(load, answers, loadAverage);
}

function report(load, answers, loadAverage) {
  const rps = (round) => round.requests / round.seconds;
  const sideRps = (rounds) => rounds.reduce((s, r) => s + r.requests, 0) / rounds.reduce((s, r) => s + r.seconds, 0);
  const ratio = (pair, a, b) => median(load[pair][a].map((round, i) => rps(round) / rps(load[pair][b][i])));
  const round3 = (x) => Math.round(x * 1000) / 1000;
  const figures = {};
  for (const [pair, sides] of Object.entries(PAIRS)) {
    const rows = sides.map((side, i) => {
      const us = 1e6 / sideRps(load[pair][side]);
      const before = sides[i - 1];
      return {
        side,
        rps: Math.round(sideRps(load[pair][side])),
        us_per_request: Math.round(us),
        over_first: round3(ratio(pair, side, sides[0])),
        over_previous: before ? round3(ratio(pair, side, before)) : null,
        added_us: before ? Math.round(us - 1e6 / sideRps(load[pair][before])) : null,
      };
    });
    figures[pair] = rows;
    console.error(`${pair}, 1 connection:`);
    for (const row of rows)
      console.error(
        `  ${row.side.padEnd(16)} ${String(row.rps).padStart(5)} req/s ${String(row.us_per_request).padStart(6)} us` +
          `  /${sides[0]} ${row.over_first.toFixed(3)}` +
          (row.over_previous === null ? "" : `  /previous ${row.over_previous.toFixed(3)} (+${row.added_us} us)`) +
          `  by round: ${load[pair][row.side].map((r) => rps(r).toFixed(0)).join(" ")}`,
      );
  }
  console.log(
    JSON.stringify({
      mode: QUICK ? "quick" : "full",
      rounds: PLAN.rounds,
      seconds: PLAN.seconds,
      ...figures,
      answers,
      load_average_start: loadAverage.map(round3),
    }),
  );
}

runBench(main, { work, log });
