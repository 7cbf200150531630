// `npm run bench:dunning` [-- --invoices N] [--port P] (issue 38 point 4; BENCHMARKS.md, "Dunning"):
// stdout `dunning invoices=N reminders=R wrong=W seconds=S`, everything else to stderr.
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { apiVars } from "../scripts/derived-config.mjs";
import { importSource } from "../scripts/import-source.mjs";
import { queryD1, runCron, startWorker } from "../scripts/local-worker.mjs";
import { firstFreePorts, INSPECTOR_OFFSET } from "../scripts/ports.mjs";
import { openInvoicesSql } from "../scripts/seed-invoices.mjs";
import { machineLine } from "./lifecycle.mjs";

process.env.WRANGLER_SEND_METRICS = "false";
const { values: flags } = parseArgs({
  options: { invoices: { type: "string", default: "20000" }, port: { type: "string", default: "9600" } },
});
const N = Number(flags.invoices);
const CUSTOMERS = 20;
const log = (line) => process.stderr.write(`${line}\n`);
const ROOT = resolve(new URL("..", import.meta.url).pathname);

const { addDays, dayIn } = await importSource('export { addDays, dayIn } from "./src/domain/time";');

log(machineLine());
const port = await firstFreePorts(Number(flags.port), [0, INSPECTOR_OFFSET], "--port");
const vars = apiVars();
const today = dayIn(new Date(), vars.BUSINESS_TIME_ZONE);
const dueOn = addDays(today, -8);
const createdAt = new Date(Date.parse(`${addDays(dueOn, -14)}T09:00:00Z`)).toISOString();
const customers = Array.from({ length: CUSTOMERS }, (_, k) => `bench-dunning-${k}`);
const buyerOf = (k) => ({
  customerId: customers[k],
  legalName: `Kunde ${k} GmbH`,
  street: "Hauptstraße 5",
  postcode: "80331",
  city: "München",
  countryCode: "DE",
  vatId: null,
  buyerReference: null,
  leitwegId: null,
  email: `rechnung-${k}@kunde.example`,
  directDebitIban: null,
  directDebitBic: null,
  directDebitMandateReference: null,
  directDebitMandateSignedOn: null,
  documentLanguage: "de",
});
const year = Number(createdAt.slice(0, 4));
const seeded = Array.from({ length: N }, (_, i) => ({
  id: randomUUID(),
  orderId: randomUUID(),
  customerId: customers[i % CUSTOMERS],
  number: `INV-${year}-${String(i + 1).padStart(6, "0")}`,
  cents: 1_000 + (i % 90_000),
  createdAt,
  dueOn,
  buyer: buyerOf(i % CUSTOMERS),
}));
const profiles = customers.map(
  (c, k) =>
    `INSERT INTO billing_profiles (customer_id, legal_name, street, postcode, city, country_code, email, ` +
    `document_language, invoice_delivery, consumer, updated_at) VALUES ('${c}', 'Kunde ${k} GmbH', ` +
    `'Hauptstraße 5', '80331', 'München', 'DE', 'rechnung-${k}@kunde.example', 'de', 'none', ${k % 4 === 0 ? 1 : 0}, '${createdAt}');`,
);
const work = join(ROOT, ".wrangler/generated/bench-dunning");
mkdirSync(work, { recursive: true });
const seedPath = join(work, "seed.sql");
const terms = { year, creditor: vars.CREDITOR_NAME, paymentMethod: "bank_transfer", description: "bench dunning" };
writeFileSync(seedPath, `${openInvoicesSql(seeded, terms)}\n${profiles.join("\n")}\n`);
const logFile = join(work, "wrangler.log");
log(`${N} invoices due ${dueOn} seeded for ${CUSTOMERS} customers; starting wrangler dev on port ${port}`);
const worker = await startWorker({
  name: "bench-dunning",
  port,
  seed: seedPath,
  vars: { JWT_SECRET: randomUUID() + randomUUID(), APP_SECRET: randomUUID() + randomUUID() },
  logFile,
});

/** The chunks' log lines so far: invoices done, steps taken. */
function progress() {
  let invoices = 0;
  let stepped = 0;
  let errors = 0;
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    const start = line.indexOf('{"job":"dunning"');
    if (start < 0) continue;
    try {
      const entry = JSON.parse(line.slice(start));
      if (entry.level === "error") errors++;
      if (typeof entry.invoices === "number" && entry.day === today) {
        invoices += entry.invoices;
        stepped += entry.stepped;
      }
    } catch {
      // a line cut short by the log's buffering: read again on the next poll
    }
  }
  return { invoices, stepped, errors };
}

let seconds;
try {
  const started = Date.now();
  await runCron(worker.url, "30 5 * * *");
  log(`cron run for ${today}; waiting for the chunks`);
  const deadline = started + 60 * 60_000;
  let last = { invoices: 0 };
  let lastAt = Date.now();
  for (;;) {
    const now = progress();
    if (now.invoices !== last.invoices) lastAt = Date.now();
    last = now;
    if (now.invoices >= N) break;
    if (Date.now() > deadline) throw new Error(`after an hour ${now.invoices} of ${N} invoices done`);
    if (Date.now() - lastAt > 120_000) throw new Error(`no chunk for 2 minutes at ${now.invoices} of ${N}`);
    log(`${now.invoices} invoices done, ${now.stepped} stepped, ${now.errors} errors logged`);
    await new Promise((r) => setTimeout(r, 5_000));
  }
  seconds = (lastAt - started) / 1000;
} finally {
  await worker.stop();
}

const [[{ reminders }], [{ notOne }], [{ otherLevels }], [{ overdue }], [{ created }]] = await queryD1(
  worker,
  [
    "SELECT count(*) AS reminders FROM reminders",
    "SELECT count(*) AS notOne FROM invoices i WHERE (SELECT count(*) FROM reminders r WHERE r.invoice_id = i.id AND r.level = 1) <> 1",
    "SELECT count(*) AS otherLevels FROM reminders WHERE level <> 1",
    "SELECT count(*) AS overdue FROM (SELECT json_extract(data, '$.id') AS id FROM events WHERE type = 'invoice.overdue' GROUP BY id HAVING count(*) = 1)",
    "SELECT count(*) AS created FROM (SELECT json_extract(data, '$.invoice_id') AS id FROM events WHERE type = 'reminder.created' GROUP BY id HAVING count(*) = 1)",
  ].join("; "),
);
const wrong = notOne + otherLevels + (N - overdue) + (N - created);
console.log(`dunning invoices=${N} reminders=${reminders} wrong=${wrong} seconds=${seconds.toFixed(1)}`);
