// `npm run bench:reconcile` [-- --transactions N] [--invoices M] [--port P] [--version 02|08] [--seed S]
// (issue 32 point 4; BENCHMARKS.md, "Reconciliation"): stdout `reconcile transactions=N wrong=W
// unmatched_referenced=U seconds=S floor_seconds=F ratio=R`, exit 1 unless W and U are 0.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { importSource } from "../scripts/import-source.mjs";
import { apiVars } from "../scripts/derived-config.mjs";
import { queryD1, startWorker } from "../scripts/local-worker.mjs";
import { isFree } from "../scripts/ports.mjs";
import { openInvoicesSql } from "../scripts/seed-invoices.mjs";
import { compare, storedSql } from "./reconcile/check.mjs";
import { rfReference } from "../test/support/check-digits.mjs";
import { makePlan, statementDescription } from "./reconcile/plan.mjs";
import { cpuBetween, cpuSnapshot, machineShare, machineTicks } from "./reconcile/processes.mjs";
import { call, expectStatus, tokenOf } from "./http.mjs";
import { runBench } from "./lifecycle.mjs";

process.env.WRANGLER_SEND_METRICS = "false";

const { values: flags } = parseArgs({
  options: {
    transactions: { type: "string", default: "10000" },
    invoices: { type: "string", default: "5000" },
    port: { type: "string", default: "8850" },
    version: { type: "string", default: "08" },
    seed: { type: "string", default: "32" },
  },
});
const N = Number(flags.transactions);
const M = Number(flags.invoices);
const VERSION = { "02": "camt.053.001.02", "08": "camt.053.001.08" }[flags.version];
if (!(Number.isInteger(N) && N >= 20 && Number.isInteger(M) && M >= 1) || !VERSION)
  throw new Error("usage: node bench/reconcile.mjs [--transactions N>=20] [--invoices M] [--version 02|08] ...");
const LIMIT_BYTES = 10 * 1024 * 1024; // docs/api.md part 15: at most 10 MiB
const POLL_MS = 500;
const TIMEOUT_MS = 60 * 60_000;
const RATE_LIMIT = 100_000_000; // the polls and checks are never limited

const work = mkdtempSync(join(tmpdir(), "bench-reconcile-"));
const wranglerEnv = { WRANGLER_LOG_PATH: join(work, "wrangler-logs") };
const t0 = Date.now();
const log = (line) => console.error(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}`);
const seconds = (ms) => Math.round(ms / 100) / 10;
const thousands = (n) => n.toLocaleString("en-US");

/** The statement file: built, written without indentation, read back as the service reads it. */
async function buildFile(plan, iban) {
  const source = await importSource(
    [
      'export { camt053File } from "./test/support/camt053-builder";',
      'export { paymentReferenceOf } from "./src/domain/payment-reference";',
      'export { readStatement } from "./src/payments/camt053";',
      'export { dedupeKeys } from "./src/payments/dedupe";',
      'export { referencesOf } from "./src/domain/matching";',
    ].join("\n"),
  );
  const pretty = source.camt053File(statementDescription(plan, { version: VERSION, iban, seed: Number(flags.seed) }));
  // The builder indents by two spaces (src/documents/xml.ts): 10,000 transactions so are ~12 MB, over the
  // limit. Whitespace between elements means nothing to a camt.053 (no text here holds a line break).
  const xml = pretty.replace(/>\n\s*</g, "><");
  const bytes = new TextEncoder().encode(xml);
  const path = join(work, "statement.xml");
  writeFileSync(path, bytes);

  // The service's reader and rule 1 must read each transaction as planned; a difference is reported, not fatal.
  let started = performance.now();
  const read = source.readStatement(bytes, 0);
  const readMs = performance.now() - started;
  started = performance.now();
  await source.dedupeKeys(iban, read);
  const keysMs = performance.now() - started;
  const astray = plan.transactions.filter((tx, i) => {
    const got = read[i];
    const named = got ? source.referencesOf(got).filter((number) => plan.byNumber.has(number)) : [];
    return (
      !got || got.amountCents !== tx.amount || got.counterpartyIban !== tx.iban || named.join() !== tx.named.join()
    );
  });
  if (read.length !== plan.transactions.length || astray.length > 0)
    log(
      `WARNING: src/payments/camt053.ts and rule 1 read ${read.length} transactions, ${astray.length} of them ` +
        `otherwise than planned (first: ${astray
          .slice(0, 3)
          .map((tx) => `position ${tx.position}, ${tx.style}, naming ${tx.named.join(" ") || "nothing"}`)
          .join("; ")})`,
    );
  const rfAstray = plan.invoices.filter((i) => source.paymentReferenceOf(i.number) !== rfReference(i.number));
  if (rfAstray.length > 0)
    log(`WARNING: ${rfAstray.length} invoices' RF references (src/domain/payment-reference.ts) are not ISO 11649's`);
  return { path, bytes, prettyBytes: Buffer.byteLength(pretty), readMs, keysMs };
}

/** ISO20022_VALIDATE (the offline schema validator), when it is named. */
function validate(path) {
  const validator = process.env.ISO20022_VALIDATE;
  if (!validator) return "not checked (ISO20022_VALIDATE is not set)";
  const run = spawnSync(validator, [path], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`the statement is not valid against the schema: ${run.stdout}${run.stderr}`);
  return "valid against the ISO schema";
}

/** The seeded invoices through GET /invoices?state=open: all open at their gross; some balances checked. */
async function checkInvoicesThroughApi(url, plan, secret) {
  const reader = (customer) =>
    tokenOf(secret, { sub: "bench-reconcile", customer_id: customer, scope: "invoices:read" });
  const seen = new Map();
  for (const customer of plan.customers) {
    const token = await reader(customer.id);
    for (let next = `${url}/invoices?state=open&page_size=100`; next; ) {
      const { body } = await expectStatus(200, next, { token });
      for (const invoice of body.data) seen.set(invoice.number, { ...invoice, customer: customer.id });
      next = body.links.next;
    }
  }
  const money = (cents) => (cents / 100).toFixed(2);
  const problems = plan.invoices.filter((i) => {
    const shown = seen.get(i.number);
    return !shown || shown.gross_amount !== money(i.gross) || shown.customer !== i.customer.id;
  });
  if (seen.size !== plan.invoices.length || problems.length > 0)
    throw new Error(`seeded invoices: ${seen.size} open shown, ${problems.length} not as planned`);
  for (const invoice of plan.invoices.filter((_, k) => k % Math.ceil(plan.invoices.length / 10) === 0)) {
    const token = await reader(invoice.customer.id);
    const { body } = await expectStatus(200, `${url}/invoices/${invoice.id}/balance`, { token });
    if (body.data.payment_reference !== rfReference(invoice.number) || body.data.open_amount !== money(invoice.gross))
      throw new Error(`balance of ${invoice.number}: ${JSON.stringify(body.data)}`);
  }
  return seen.size;
}

/** Polls the statement until it is no longer `processing`: its last answer, the progress seen, how long the polls took. */
async function untilProcessed(url, id, token, started, reloads) {
  const timeline = [];
  const latencies = [];
  let lastLog = 0;
  for (;;) {
    const { status, body, ms } = await call(`${url}/bank_statements/${id}`, { token });
    const at = performance.now() - started;
    latencies.push(ms);
    if (status !== 200) throw new Error(`GET /bank_statements/${id}: ${status} ${JSON.stringify(body)}`);
    const s = body.data;
    const done = s.matched_count + s.unmatched_count + s.duplicate_count;
    timeline.push({ at, done });
    if (s.state !== "processing") return { statement: s, timeline, at, latencies };
    if (at - lastLog >= 10_000) {
      lastLog = at;
      log(`  ${thousands(done)} of ${thousands(s.transactions_count)} after ${seconds(at)} s`);
    }
    if (at > TIMEOUT_MS || (reloads() && at - timeline.find((p) => p.done === done).at > 60_000))
      throw new Error(`still processing after ${seconds(at)} s${reloads() ? `; ${reloads()}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The floor (floor-worker.ts) on a D1 seeded alike: seconds from the request to its answer. */
async function measureFloor({ plan, file, seedPath, port, iban }) {
  log("starting the floor's Worker (the same seed, no matching)");
  const worker = await startWorker({
    name: "bench-reconcile-floor",
    port: port + 1,
    config: "bench/reconcile/floor.toml",
    seed: seedPath,
    env: wranglerEnv,
  });
  try {
    const byNumber = new Map(plan.invoices.map((invoice) => [invoice.number, invoice]));
    const given = plan.transactions.flatMap((tx) =>
      tx.expected.map(({ number, amount }) => {
        const invoice = byNumber.get(number);
        return [tx.position, invoice.id, number, invoice.customer.id, amount];
      }),
    );
    const gross = Object.fromEntries(plan.invoices.map((invoice) => [invoice.id, invoice.gross]));
    const put = await fetch(`${worker.url}/allocations`, { method: "PUT", body: JSON.stringify({ given, gross }) });
    if (put.status !== 204) throw new Error(`floor: PUT /allocations ${put.status}`);
    const started = performance.now();
    const response = await fetch(`${worker.url}/floor?iban=${encodeURIComponent(iban)}`, {
      method: "POST",
      body: file.bytes,
    });
    const body = await response.json();
    const ms = performance.now() - started;
    if (response.status !== 200 || body.transactions !== plan.transactions.length)
      throw new Error(`floor: ${response.status} ${JSON.stringify(body)}`);
    return { ms, workerMs: body.ms, transactions: body.transactions, statements: body.statements };
  } finally {
    await worker.stop();
    rmSync(worker.persistTo, { recursive: true, force: true });
  }
}

async function main() {
  const port = Number(flags.port);
  for (const p of [port, port + 1, port + 1000, port + 1001])
    if (!(await isFree(p)))
      throw new Error(`port ${p} is in use; pass --port <port> (it uses port, port + 1 and those + 1000)`);
  const machine = {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? "unknown",
    loadAverage: loadavg(),
    node: process.version,
    wrangler: JSON.parse(readFileSync(new URL("../node_modules/wrangler/package.json", import.meta.url), "utf8"))
      .version,
  };
  log(
    `machine: ${machine.cores} x ${machine.cpu}; Node ${machine.node}; wrangler ${machine.wrangler}; ` +
      `load average ${machine.loadAverage.map((x) => x.toFixed(2)).join(", ")}`,
  );

  const vars = apiVars();
  const plan = makePlan({ transactions: N, invoices: M, seed: Number(flags.seed) });
  const kinds = Object.entries(plan.counts).map(([kind, n]) => `${kind} ${thousands(n)}`);
  const instalments = plan.transactions.filter((tx) => tx.instalment !== null).length;
  log(
    `plan: ${thousands(N)} transactions (${kinds.join(", ")}) against ${thousands(M)} open invoices of ` +
      `${plan.customers.length} customers; ${thousands(instalments)} of the RF and number transfers are instalments`,
  );
  const file = await buildFile(plan, vars.CREDITOR_IBAN);
  const size = file.bytes.length;
  log(
    `file: ${VERSION}, ${thousands(size)} bytes (${((100 * size) / LIMIT_BYTES).toFixed(0)} % of 10 MiB; indented ` +
      `as the builder writes it: ${thousands(file.prettyBytes)}), ${validate(file.path)}; ` +
      `in Node, src/payments/camt053.ts reads it in ${Math.round(file.readMs)} ms, ` +
      `its dedupe keys take ${Math.round(file.keysMs)} ms`,
  );
  if (size > LIMIT_BYTES) throw new Error(`the file is over 10 MiB: ${size} bytes`);

  // wrangler dev reloads the Workers when src/ changes (watch_dir): a run cut by a reload measures nothing.
  const changed = new Set();
  const watcher = watch(new URL("../src", import.meta.url), { recursive: true }, (_, name) => changed.add(name));
  watcher.unref(); // never what keeps the bench alive
  const reloads = () =>
    changed.size > 0 ? `src/ changed during the run (${[...changed].slice(0, 5).join(", ")})` : "";

  // The plan's invoices, a minute apart from 1 October, due 14 days later, a bank transfer each.
  const seedPath = join(work, "seed.sql");
  const seeded = plan.invoices.map((invoice) => {
    const createdAt = new Date(Date.UTC(2026, 9, 1) + invoice.index * 60_000).toISOString();
    const dueOn = new Date(Date.parse(createdAt.slice(0, 10)) + 14 * 86_400_000).toISOString().slice(0, 10);
    const { id, orderId, number, gross: cents } = invoice;
    return { id, orderId, customerId: invoice.customer.id, number, cents, createdAt, dueOn };
  });
  const terms = {
    year: plan.year,
    creditor: vars.CREDITOR_NAME,
    paymentMethod: "bank_transfer",
    description: "bench reconcile",
  };
  writeFileSync(seedPath, `${openInvoicesSql(seeded, terms)}\n`);
  const secret = crypto.randomUUID() + crypto.randomUUID();
  log(`starting wrangler dev on port ${port} (API, jobs and documents Workers), its D1 seeded`);
  const worker = await startWorker({
    name: "bench-reconcile",
    port,
    rateLimit: RATE_LIMIT,
    vars: {
      JWT_SECRET: secret,
      APP_SECRET: crypto.randomUUID() + crypto.randomUUID(),
    },
    seed: seedPath,
    env: wranglerEnv,
  });
  const shown = await checkInvoicesThroughApi(worker.url, plan, secret);
  log(`the service shows the ${thousands(shown)} seeded invoices open, of their amounts and RF references`);

  const backOffice = await tokenOf(secret, { sub: "bench-reconcile", scope: "payments:read payments:write" }, 6 * 3600);
  const cpuBefore = cpuSnapshot();
  const ticksBefore = machineTicks();
  const load = loadavg();
  log(`uploading (load average ${load.map((x) => x.toFixed(2)).join(", ")})`);
  const started = performance.now();
  const startedAt = Date.now();
  let upload;
  let uploaded;
  try {
    upload = await fetch(`${worker.url}/bank_statements`, {
      method: "POST",
      headers: { Authorization: `Bearer ${backOffice}`, "Content-Type": "application/xml" },
      body: file.bytes,
    });
    uploaded = await upload.text();
  } catch (error) {
    const cause = error?.cause ? ` (${error.cause.code ?? ""} ${error.cause.message ?? error.cause})` : "";
    throw new Error(
      `POST /bank_statements failed after ${Math.round(performance.now() - started)} ms` +
        `${upload ? `, status ${upload.status} received` : ""}: ${error.message}${cause}` +
        (reloads() ? `; ${reloads()}: wrangler dev reloaded the Workers` : ""),
    );
  }
  const uploadMs = performance.now() - started;
  if (upload.status !== 202) throw new Error(`POST /bank_statements: ${upload.status} ${uploaded}`);
  const [{ id }] = JSON.parse(uploaded).data;
  log(
    `202 after ${Math.round(uploadMs)} ms (the statement's created_at is ` +
      `${Date.parse(JSON.parse(uploaded).data[0].created_at) - startedAt} ms after the upload began): ` +
      `statement ${id}; polling every ${POLL_MS} ms`,
  );
  const { statement, timeline, at, latencies } = await untilProcessed(worker.url, id, backOffice, started, reloads);
  const cpu = cpuBetween(cpuBefore, cpuSnapshot());
  const share = machineShare(ticksBefore, machineTicks());
  const wall = (at / 1000).toFixed(1);
  log(
    `${statement.state} after ${wall} s: matched ${statement.matched_count}, unmatched ${statement.unmatched_count}, ` +
      `duplicates ${statement.duplicate_count}` +
      (statement.error ? `; error: ${statement.error}` : ""),
  );
  const serverSeconds = (Date.parse(statement.processed_at) - Date.parse(statement.created_at)) / 1000;
  log(
    `the statement's own created_at to processed_at: ${serverSeconds.toFixed(1)} s; ` +
      `${(N / Number(wall)).toFixed(0)} transactions/s overall; progress seen at ` +
      timeline
        .filter((_, i) => i % Math.ceil(timeline.length / 10) === 0 || i === timeline.length - 1)
        .map((p) => `${seconds(p.at)} s: ${thousands(p.done)}`)
        .join(", "),
  );
  const spread = (list) => {
    const sorted = [...list].sort((a, b) => a - b);
    return `median ${Math.round(sorted[Math.floor(sorted.length / 2)])} ms, max ${Math.round(sorted.at(-1))} ms`;
  };
  log(
    `while processing, ${latencies.length} polls: GET /bank_statements/{id} (passed on to the jobs ` +
      `Worker) ${spread(latencies)}`,
  );
  log(
    `CPU seconds in those ${wall} s, by process: ${JSON.stringify(cpu.byCommand)}; workerd by thread: ` +
      JSON.stringify(cpu.byThread) +
      (share
        ? `; the machine's ${machine.cores} cores were ${share.busyPercent} % busy (every process, ` +
          `other people's too), ${share.stealPercent} % stolen by the host`
        : ""),
  );

  await worker.stop();
  watcher.close();
  log("reading the stored transactions, payments and invoices from the D1");
  const rows = await queryD1(worker, storedSql(id), wranglerEnv);
  const result = compare(plan, rows);
  rmSync(worker.persistTo, { recursive: true, force: true });
  log(
    `stored: states ${JSON.stringify(result.states)}; events ${JSON.stringify(result.events)}; invoices not as ` +
      `expected ${result.invoicesWrong}` +
      (Object.keys(result.wrongByStyle).length > 0 ? `; wrong by style ${JSON.stringify(result.wrongByStyle)}` : ""),
  );
  for (const [kind, list] of Object.entries(result.problems)) log(`  ${kind} (${list.count}): ${list.join(" | ")}`);

  const floor = await measureFloor({ plan, file, seedPath, port, iban: vars.CREDITOR_IBAN });
  const floorSeconds = (floor.ms / 1000).toFixed(1);
  log(
    `floor (bench/reconcile/floor-worker.ts, the same file parsed and ${thousands(floor.transactions)} transactions ` +
      `and their allocations written, ${thousands(floor.statements)} statements, no matching): ${floorSeconds} s ` +
      `from the request (the Worker's own ${(floor.workerMs / 1000).toFixed(1)} s)`,
  );
  console.log(
    `reconcile transactions=${N} wrong=${result.wrong} unmatched_referenced=${result.unmatchedReferenced} ` +
      `seconds=${wall} floor_seconds=${floorSeconds} ratio=${(Number(floorSeconds) / Number(wall)).toFixed(2)}`,
  );
  if (reloads()) log(`the figures are void: ${reloads()}, and wrangler dev reloaded the Workers meanwhile`);
  if (result.wrong > 0 || result.unmatchedReferenced > 0 || Object.keys(result.problems).length > 0 || reloads())
    process.exitCode = 1;
}

runBench(main, { work, log });
