// `npm run load [-- --duration 30] [--connections 8] [--port 8797] [--faults 0.05] [--noisy-neighbour] [--quick]`
// A bounded load run on loopback, then a verification of every stored row and event; exits 1 on any
// finding or unexpected answer. RELIABILITY.md describes what it does and checks.
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { unstable_readConfig } from "wrangler";
import { apiVars } from "./derived-config.mjs";
import { queryD1, startWorker } from "./local-worker.mjs";
import { INSPECTOR_OFFSET, isFree } from "./ports.mjs";
import { createClient, statusLabel } from "./load/http.mjs";
import { createWorld, PRINCIPALS_PER_TENANT, runLoad, TENANTS, writeBillingProfiles } from "./load/mix.mjs";
import { awaitMoney, createMoney } from "./load/money.mjs";
import { readRows, rowChecks } from "./load/rows.mjs";
import { percentile } from "./load/util.mjs";
import { anyFinding, eventChecks, mergeFindings, readState, resourceChecks, runChecks, tally } from "./load/verify.mjs";
import {
  awaitDeliveries,
  firstAttemptSeconds,
  registerEndpoints,
  registerNoisyEndpoints,
  startNoisyServer,
  startReceiver,
} from "./load/webhooks.mjs";

// wrangler.toml's 600 per 60 s per sub would make most of the run 429s: it measures the service, not the limiter.
const RAISED_RATE_LIMIT = 1_000_000;
// A voucher VAT with a fraction (wrangler.toml's is 0 %), so that half-up rounding is tested on vouchers.
const VOUCHER_VAT_PERCENT = "7.5";
// The wait for the last deliveries: a lost event's cron redispatch, a failed delivery's 30 s / 2 min retries.
const DELIVERY_BOUND_MS = 60_000;
const DELIVERY_BOUND_WITH_FAULTS_MS = 150_000;
// How long it waits, before that, for statements to be processed and deliveries sent: under --faults an
// attempt whose D1 call failed after it took its delivery holds it for its 2 min lease (src/deliveries/send.ts).
const DRAIN_BOUND_WITH_FAULTS_MS = 420_000;
// The retry wait after a failed delivery (wrangler.toml: 30 s), shortened: faults fail attempts far more often.
const DELIVERY_RETRY_BASE_SECONDS = "2";
// docs/api.md part 11: the first attempt within 30 s of the change, whatever a neighbour's endpoints do.
const FIRST_ATTEMPT_BOUND_S = 30;
// What the Worker logs about each failed D1 call under --faults: expected, thousands of lines; counted, not shown.
const FAULT_LOG_LINES = [
  /"error":"database_unavailable"/,
  /"error":"events_not_recovered"/,
  /"job":"queue"/,
  /Uncaught Error: Failed query: /,
  /injected by bench\/wrapped-d1/,
  /"job":"statement".*"error":"(DatabaseUnavailableError|Error: Failed query)/, // retried by its queue
];

const USAGE =
  "usage: node scripts/load.mjs [--duration <s>] [--connections <n>] [--port <p>] [--faults <rate, e.g. 0.05>] " +
  "[--noisy-neighbour] [--quick] [--worker-log <file>]";

function readOptions() {
  const { values } = parseArgs({
    options: {
      duration: { type: "string" },
      connections: { type: "string", default: "8" },
      port: { type: "string", default: "8797" }, // not wrangler's 8787, which `npm run dev` uses
      faults: { type: "string", default: "0" },
      quick: { type: "boolean", default: false },
      "noisy-neighbour": { type: "boolean", default: false },
      // The Worker's own log lines (every request, delivery attempt and cron run), for a post-mortem.
      "worker-log": { type: "string" },
    },
  });
  const options = {
    duration: Number(values.duration ?? (values.quick ? 5 : 30)),
    connections: Number(values.connections),
    port: Number(values.port),
  };
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isInteger(value) || value <= 0) {
      console.error(`--${name} must be a positive integer\n${USAGE}`);
      process.exit(2);
    }
  }
  const faults = Number(values.faults);
  if (!(faults >= 0 && faults < 1)) {
    console.error(`--faults must be a share of D1 calls from 0 to below 1, e.g. 0.05\n${USAGE}`);
    process.exit(2);
  }
  return { ...options, faults, workerLog: values["worker-log"], noisyNeighbour: values["noisy-neighbour"] };
}

/** Exits 2 when the port is taken: startWorker would take another server's answer for ready. */
async function assertPortFree(port, what) {
  if (!(await isFree(port))) {
    console.error(
      `127.0.0.1:${port} (${what}) is in use; choose another --port (the run takes the port, ` +
        "the port + 1 for its webhook receiver, the port + 2 for --noisy-neighbour's endpoints " +
        "and the port + 1000 for the Worker's inspector)",
    );
    process.exit(2);
  }
}

/** The `{ limit, period }` of wrangler.toml's rate limiter; startWorker keeps the period. */
const configuredRateLimit = () =>
  unstable_readConfig({ config: fileURLToPath(new URL("../wrangler.toml", import.meta.url)) }).ratelimits[0].simple;

/** The fee and VAT variables of this run: wrangler.toml's, but the voucher VAT (above). */
function billingVars() {
  const { SERVICE_VAT_PERCENT, CARD_PRODUCTION_FEE, SHIPPING_FEE } = apiVars();
  return { VOUCHER_VAT_PERCENT, SERVICE_VAT_PERCENT, CARD_PRODUCTION_FEE, SHIPPING_FEE };
}

/** wrangler's stderr less the fault lines (each with the blank or indented lines after it), which `counts` counts. */
function withoutFaultLines(counts) {
  let dropping = false;
  return (line) => {
    if (FAULT_LOG_LINES.some((pattern) => pattern.test(line))) {
      dropping = true;
      counts.faultLogLines++;
    } else if (!/^(\s|$)/.test(line)) dropping = false;
    if (!dropping) process.stderr.write(`${line}\n`);
  };
}

/** "label: n, ..." of a Map of counts, by label. */
const counted = (counts) =>
  [...counts]
    .sort()
    .map(([label, n]) => `${label}: ${n}`)
    .join(", ");

function report(world, stats, seconds, faults) {
  const latencies = stats.samples.map((s) => s.ms).sort((a, b) => a - b);
  const byStatus = new Map();
  const byOp = new Map();
  for (const sample of stats.samples) {
    byStatus.set(statusLabel(sample), (byStatus.get(statusLabel(sample)) ?? 0) + 1);
    if (!byOp.has(sample.op)) byOp.set(sample.op, []);
    byOp.get(sample.op).push(sample.ms);
  }
  const ms = (value) => value.toFixed(1);
  console.log(`\nduration        ${seconds.toFixed(1)} s`);
  console.log(`requests        ${stats.samples.length}${faults ? " (every attempt, retries included)" : ""}`);
  console.log(`requests/s      ${(stats.samples.length / seconds).toFixed(1)}`);
  console.log(`latency p50     ${ms(percentile(latencies, 0.5))} ms`);
  console.log(`latency p99     ${ms(percentile(latencies, 0.99))} ms`);
  console.log(`by status       ${counted(byStatus)}`);
  console.log(`by operation    count   p50 ms   p99 ms`);
  for (const [op, values] of [...byOp].sort((a, b) => b[1].length - a[1].length)) {
    values.sort((a, b) => a - b);
    console.log(
      `  ${op.padEnd(58)} ${String(values.length).padStart(6)} ` +
        `${ms(percentile(values, 0.5)).padStart(8)} ${ms(percentile(values, 0.99)).padStart(8)}`,
    );
  }
  const { listFollows, entriesAdded, entriesDeleted, reinvoiced, deletesThatHadRun } = world.counts;
  console.log(
    `lists followed to their next page: ${listFollows}; entries added ${entriesAdded}, deleted ${entriesDeleted}; ` +
      `orders invoiced again after a cancelled invoice: ${reinvoiced}`,
  );
  if (faults) {
    const retried = [...stats.retried.values()].reduce((sum, n) => sum + n, 0);
    const endings = counted(stats.retried);
    const others = stats.serverErrors.size ? "other 5xx below" : "no other 5xx";
    console.log(
      `faults          ${stats.unavailable} answers 503 unavailable, each with Retry-After, ` +
        `${others} (load and verification); ` +
        `${retried} requests retried as they were, until they ended in: ${endings || "none"}`,
    );
    console.log(
      `                "(replayed)": an earlier attempt had committed and lost its answer; ` +
        `${deletesThatHadRun} entry deletes answered 404 after a 503: an earlier attempt had deleted the entry`,
    );
  }
  if (stats.serverErrors.size) {
    console.log("5xx not allowed:");
    for (const [label, n] of stats.serverErrors) console.log(`  ${label} × ${n}`);
  }
  if (world.unexpected.size) {
    console.log("unexpected answers:");
    for (const [label, n] of world.unexpected) console.log(`  ${label} × ${n}`);
  }
}

async function main() {
  const options = readOptions();
  // Ctrl-C: the Worker's process group never gets the terminal's SIGINT, so stop it here.
  const stopping = new AbortController();
  const interrupt = () => {
    console.error("\ninterrupted: stopping the load and the Worker");
    stopping.abort();
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);

  // Secrets of this run only: the Worker's config is generated outside the project, away from .dev.vars.
  const secret = randomBytes(32).toString("hex");
  const appSecret = randomBytes(32).toString("hex");
  await assertPortFree(options.port, "the Worker");
  await assertPortFree(options.port + 1, "the webhook receiver");
  await assertPortFree(options.port + INSPECTOR_OFFSET, "the Worker's inspector");
  if (options.noisyNeighbour) await assertPortFree(options.port + 2, "the noisy neighbour's endpoints");
  const vars = billingVars();
  const receiver = await startReceiver(options.port + 1);
  const noisyServer = options.noisyNeighbour ? await startNoisyServer(options.port + 2) : undefined;
  const faulty = options.faults > 0;
  const logCounts = { faultLogLines: 0 };
  console.log(
    `starting wrangler dev on 127.0.0.1:${options.port} with a fresh local D1` +
      `${faulty ? `, its D1 binding failing ${options.faults * 100} % of calls (bench/wrapped-d1)` : ""} ...`,
  );
  const worker = await startWorker({
    name: "load",
    port: options.port,
    rateLimit: RAISED_RATE_LIMIT,
    main: faulty ? "bench/wrapped-d1/worker.ts" : undefined,
    companionMains: faulty ? { "wrangler.jobs.toml": "bench/wrapped-d1/jobs.ts" } : {},
    vars: {
      JWT_SECRET: secret,
      APP_SECRET: appSecret,
      ALLOW_LOCAL_WEBHOOKS: "true",
      VOUCHER_VAT_PERCENT,
      DELIVERY_RETRY_BASE_SECONDS,
      ...(faulty ? { D1_FAULT_RATE: String(options.faults) } : {}),
    },
    onErrorLine: faulty ? withoutFaultLines(logCounts) : undefined,
    logFile: options.workerLog,
  }).catch(async (error) => {
    await receiver.stop();
    throw error;
  });
  let running = true;
  try {
    if (stopping.signal.aborted) return 130;
    const { send, stats } = createClient(worker.url, stopping.signal, { faults: faulty });
    const world = await createWorld(secret, send);
    // docs/api.md part 18's dunning run, where the service has reminders (another branch may add them).
    const [[{ n: reminders }]] = await queryD1(
      worker,
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'reminders'",
    );
    await createMoney(world, secret, { dunning: reminders > 0, workerUrl: worker.url, faulty });
    if (!reminders) console.log("dunning: skipped (the service has no reminders table)");
    await registerEndpoints(world, receiver);
    await writeBillingProfiles(world);
    const noisy = noisyServer && (await registerNoisyEndpoints(world, noisyServer));
    if (noisy)
      console.log(
        `noisy neighbour: ${noisy.id} also subscribes 5 endpoints that never answer, ` +
          `1 that answers 500 and 1 that redirects (${noisyServer.url})`,
      );
    console.log(
      `load: ${options.duration} s, ${options.connections} connections, ` +
        `${TENANTS} tenants × ${PRINCIPALS_PER_TENANT} principals, all scopes, on ${worker.url}`,
    );
    const { limit, period } = configuredRateLimit();
    console.log(
      `rate limit raised from ${limit} to ${RAISED_RATE_LIMIT} requests/${period} s per sub for this run, ` +
        "so that it measures the service, not the limiter",
    );
    console.log(
      `voucher VAT ${VOUCHER_VAT_PERCENT} % for this run (wrangler.toml: 0), ` +
        `so that voucher invoices round half up too; webhooks of each tenant to ${receiver.url}`,
    );
    console.log(
      `deliveries retried after ${DELIVERY_RETRY_BASE_SECONDS} s × 4^n for this run (default 30 s × 4^n), ` +
        "so that an attempt a fault failed is tried again within the run",
    );
    const seconds = await runLoad(world, options, stopping.signal);
    const loadEnded = Date.now();
    if (stopping.signal.aborted) return 130;
    report(world, stats, seconds, faulty);
    const { counts: money } = world.money;
    console.log(
      `money           ${money.statements} statements uploaded (${money.again} a file again, ${money.batches} with a ` +
        `batch entry of transfers), ${money.credits} credits planted, ${money.settlements} direct-debit settlements, ` +
        `${money.returns} returns; ${money.allocations} allocations (${money.allocationsRefused} refused 409); ` +
        `${money.collections} collections (${money.collectionsEmpty} found nothing); ${money.resends} documents sent again; ` +
        `${world.money.dunningRuns} dunning runs`,
    );

    // Statements processed and deliveries sent before the events are read: both make events.
    const drainedMs = await awaitMoney(world, {
      boundMs: faulty ? DRAIN_BOUND_WITH_FAULTS_MS : DELIVERY_BOUND_MS,
      stopSignal: stopping.signal,
      faulty,
    });
    console.log(
      `queues drained (statements processed, no delivery pending) ${(drainedMs / 1000).toFixed(1)} s after the load`,
    );
    const state = await readState(world, options.connections);
    const boundMs = faulty ? DELIVERY_BOUND_WITH_FAULTS_MS : DELIVERY_BOUND_MS;
    const waitedMs = await awaitDeliveries(receiver, worker.url, state.events, {
      since: loadEnded + drainedMs,
      boundMs,
      stopSignal: stopping.signal,
      faulty,
    });
    if (stopping.signal.aborted) return 130;
    console.log(
      `\nverification (${state.reads} reads by id and page, the full lists and events, after the load; ` +
        "not counted above)",
    );
    const resources = await runChecks(resourceChecks(world, state, vars));
    const events = await runChecks(eventChecks(world, state, receiver, { waitedMs, boundMs }));
    await worker.stop();
    running = false;
    if (faulty)
      console.log(
        `  (the Worker logged ${logCounts.faultLogLines} lines about failed D1 calls: ` +
          "503s, consumer retries, failed cron runs; not shown)",
      );
    console.log("stored rows (wrangler d1 execute on the run's D1, after the Worker stopped)");
    const rows = await runChecks(rowChecks(world, state, await readRows(worker)));

    const all = mergeFindings(resources, events, rows);
    const transportErrors = stats.samples.filter((s) => s.status === 0).length;
    const failures = [
      stats.serverErrors.size && "5xx other than a 503 with Retry-After",
      transportErrors && `${transportErrors} transport errors`,
      world.unexpected.size && "unexpected answers",
    ].filter(Boolean);
    if (failures.length) console.log(`\nFAILED: ${failures.join(", ")}`);
    console.log(`\ncard orders, entries, invoices, devices, rows: ${tally(mergeFindings(resources, rows))}`);
    console.log(`events and their deliveries: ${tally(events)}`);
    console.log(tally(all));
    let slowNeighbour = false;
    if (noisy) {
      const seconds = firstAttemptSeconds(receiver, noisy);
      const figure = (q) => percentile(seconds, q).toFixed(1);
      console.log(`noisy_neighbour first_attempt_s p50=${figure(0.5)} p99=${figure(0.99)} max=${figure(1)}`);
      slowNeighbour = seconds.length === 0 || seconds.at(-1) > FIRST_ATTEMPT_BOUND_S;
      if (slowNeighbour)
        console.log(`FAILED: another tenant's first delivery took over ${FIRST_ATTEMPT_BOUND_S} s (or none arrived)`);
    }
    return anyFinding(all) || failures.length || slowNeighbour ? 1 : 0;
  } finally {
    if (running) await worker.stop();
    await receiver.stop();
    await noisyServer?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
