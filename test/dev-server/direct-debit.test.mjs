// CONTRACT part 16 end to end, under real `wrangler dev` (the API Worker with the jobs and documents
// Workers, their local queues and D1), as the back office and a customer use it (issue 33):
//   1. the whole loop as one test: a direct-debit order invoiced, collected, the collection's pain.008
//      downloaded and valid against ISO's schema, settled by an uploaded camt.053, its debit returned
//      (AM04), collected again as RCUR, settled again; the invoice's payments and events tell that story;
//   2. collections of 1, 2 and 1,000 invoices (seeded straight into D1 before the Worker starts, as the
//      bench seeds them), each file's sums checked and validated against ISO's schema.
// The validator lives outside the repository and is named by ISO20022_VALIDATE
// (scripts/iso20022-validator.mjs): without it the validation is skipped, except in CI (CI=true).
// Ports: free from DEV_SERVER_PORT (default 8900) + 300 on: the Worker and its inspector (1000 above).
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { sign } from "hono/jwt";
import { SaxesParser } from "saxes";
import { importSource } from "../../scripts/import-source.mjs";
import { iso20022Validator, validatorRequired } from "../../scripts/iso20022-validator.mjs";
import { startWorker } from "../../scripts/local-worker.mjs";
import { openInvoicesSql } from "../../scripts/seed-invoices.mjs";
import { germanIban } from "../support/check-digits.mjs";
import { firstFreePorts, INSPECTOR_OFFSET } from "../../scripts/ports.mjs";

const { camt053File, earliestCollectionDate, isTarget2Day, addDays, dayIn, paymentReferenceOf } = await importSource(
  [
    'export { camt053File } from "./test/support/camt053-builder";',
    'export { earliestCollectionDate, isTarget2Day } from "./src/domain/target2";',
    'export { addDays, dayIn } from "./src/domain/time";',
    'export { paymentReferenceOf } from "./src/domain/payment-reference";',
  ].join("\n"),
);

const SELLER_IBAN = "DE02120300000000202051"; // wrangler.toml's CREDITOR_IBAN
const SCOPES =
  "card_orders:read card_orders:write invoices:read invoices:write events:read payments:read payments:write";
const PROCESSED_WITHIN_MS = 60_000;
const SEPA_ID = /^[A-Za-z0-9/?:().,'+-]{1,35}$/;
const SEPA_TEXT = /^[A-Za-z0-9/?:().,'+ -]*$/;

const today = () => dayIn(new Date(), "Europe/Berlin"); // wrangler.toml's BUSINESS_TIME_ZONE
const firstOpenFrom = (day) => {
  let open = day;
  while (!isTarget2Day(open)) open = addDays(open, 1);
  return open;
};
const nextOpen = (day) => firstOpenFrom(addDays(day, 1));
const cents = (money) => {
  const [whole, fraction = ""] = money.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
};
const money = (value) => `${Math.floor(value / 100)}.${String(value % 100).padStart(2, "0")}`;

/** A Worker of this file's own, on fresh state; stopped when `t` ends. */
async function worker(t, name, options = {}) {
  const port = await firstFreePorts(
    Number(process.env.DEV_SERVER_PORT ?? 8900) + 300,
    [0, INSPECTOR_OFFSET],
    "DEV_SERVER_PORT",
  );
  const jwtSecret = randomBytes(32).toString("hex");
  const started = await startWorker({ name, port, vars: { JWT_SECRET: jwtSecret }, ...options });
  t.after(() => started.stop());
  const token = await sign(
    {
      sub: "dev-server-dd",
      customer_id: `customer-${randomUUID()}`,
      scope: SCOPES,
      exp: Math.floor(Date.now() / 1000) + 1800,
    },
    jwtSecret,
    "HS256",
  );
  /** The API as a client calls it: status, headers and the body (JSON, or text). */
  const api = async (method, path, { json, body, headers = {} } = {}) => {
    const response = await fetch(started.url + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(json && { "Content-Type": "application/json" }), ...headers },
      body: json ? JSON.stringify(json) : body,
    });
    const text = await response.text();
    const type = response.headers.get("Content-Type") ?? "";
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: type.includes("json") ? JSON.parse(text) : text,
    };
  };
  const expect = async (status, method, path, options) => {
    const response = await api(method, path, options);
    assert.equal(response.status, status, `${method} ${path}: ${response.status} ${response.text.slice(0, 500)}`);
    return response;
  };
  return { ...started, api, expect };
}

/** Uploads a camt.053 of the seller's account holding `entries` and waits until it is processed. */
async function statement(w, entries, version = "camt.053.001.08") {
  const file = camt053File({
    version,
    messageId: `MSG-${randomUUID().slice(0, 8)}`,
    statements: [{ id: `STMT-${randomUUID().slice(0, 8)}`, iban: SELLER_IBAN, entries }],
  });
  const uploaded = await w.expect(202, "POST", "/bank_statements", {
    body: file,
    headers: { "Content-Type": "application/xml" },
  });
  const [{ id }] = uploaded.body.data;
  const deadline = Date.now() + PROCESSED_WITHIN_MS;
  for (;;) {
    const { body } = await w.expect(200, "GET", `/bank_statements/${id}`);
    if (body.data.state !== "processing") {
      assert.equal(body.data.state, "processed", JSON.stringify(body.data));
      return body.data;
    }
    assert.ok(Date.now() < deadline, `statement ${id} still processing after ${PROCESSED_WITHIN_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// --- A pain.008, read.

/** `xml` as a tree of { name, attributes, children, text }. */
function parseXml(xml) {
  const parser = new SaxesParser({ xmlns: true });
  const root = { name: "#document", children: [], text: "" };
  const stack = [root];
  parser.on("opentag", (tag) => {
    const node = {
      name: tag.local,
      attributes: Object.fromEntries(Object.values(tag.attributes).map((a) => [a.name, a.value])),
      children: [],
      text: "",
    };
    stack.at(-1).children.push(node);
    stack.push(node);
  });
  parser.on("text", (text) => {
    stack.at(-1).text += text;
  });
  parser.on("closetag", () => stack.pop());
  parser.on("error", (error) => {
    throw error;
  });
  parser.write(xml).close();
  return root.children[0];
}
const all = (node, path) =>
  path.split("/").reduce((nodes, name) => nodes.flatMap((n) => n.children.filter((c) => c.name === name)), [node]);
const textAt = (node, path) => all(node, path)[0]?.text.trim();

/** What a pain.008 says, checked to add up: file and blocks (NbOfTxs, CtrlSum), ids and texts in the SEPA set. */
function readPain008(xml, collection) {
  const initiation = all(parseXml(xml), "CstmrDrctDbtInitn")[0];
  assert.ok(initiation, "a CstmrDrctDbtInitn");
  const blocks = all(initiation, "PmtInf").map((block) => ({
    id: textAt(block, "PmtInfId"),
    sequence: textAt(block, "PmtTpInf/SeqTp"),
    count: Number(textAt(block, "NbOfTxs")),
    sum: textAt(block, "CtrlSum"),
    debits: all(block, "DrctDbtTxInf").map((tx) => ({
      endToEndId: textAt(tx, "PmtId/EndToEndId"),
      amount: textAt(tx, "InstdAmt"),
      mandateId: textAt(tx, "DrctDbtTx/MndtRltdInf/MndtId"),
      amendment: textAt(tx, "DrctDbtTx/MndtRltdInf/AmdmntInd"),
      originalIban: textAt(tx, "DrctDbtTx/MndtRltdInf/AmdmntInfDtls/OrgnlDbtrAcct/Id/IBAN"),
      name: textAt(tx, "Dbtr/Nm"),
      country: textAt(tx, "Dbtr/PstlAdr/Ctry"),
      iban: textAt(tx, "DbtrAcct/Id/IBAN"),
      reference: textAt(tx, "RmtInf/Strd/CdtrRefInf/Ref"),
    })),
  }));
  const debits = blocks.flatMap((block) => block.debits.map((debit) => ({ ...debit, sequence: block.sequence })));
  for (const block of blocks) {
    assert.equal(block.count, block.debits.length, `NbOfTxs of ${block.id}`);
    assert.equal(block.sum, money(block.debits.reduce((sum, d) => sum + cents(d.amount), 0)), `CtrlSum of ${block.id}`);
    assert.equal(block.id, `${collection.message_id}-${block.sequence}`);
  }
  assert.equal(textAt(initiation, "GrpHdr/MsgId"), collection.message_id);
  assert.equal(Number(textAt(initiation, "GrpHdr/NbOfTxs")), debits.length, "NbOfTxs of the file");
  assert.equal(textAt(initiation, "GrpHdr/CtrlSum"), money(debits.reduce((sum, d) => sum + cents(d.amount), 0)));
  assert.equal(debits.length, collection.transactions_count);
  assert.equal(textAt(initiation, "GrpHdr/CtrlSum"), collection.control_sum);
  for (const id of [
    collection.message_id,
    ...blocks.map((b) => b.id),
    ...debits.flatMap((d) => [d.endToEndId, d.mandateId]),
  ])
    assert.match(id, SEPA_ID);
  assert.equal(new Set(debits.map((d) => d.endToEndId)).size, debits.length, "no end-to-end id twice");
  for (const debit of debits) {
    assert.match(debit.name, SEPA_TEXT);
    assert.ok(debit.name.length >= 1 && debit.name.length <= 70, debit.name);
    assert.equal(debit.reference, paymentReferenceOf(debit.endToEndId.replace(/-R\d+$/, "")));
  }
  return { blocks, debits };
}

/**
 * Runs ISO20022_VALIDATE over `files` ({ name: xml }): every one valid as a pain.008.001.08. Answers why
 * it did not run (absent, outside CI), else undefined.
 */
function validateAll(files) {
  const found = iso20022Validator();
  if (found.absent) {
    assert.ok(!validatorRequired(), `the ISO 20022 validator is required in CI, but absent: ${found.absent}`);
    return `ISO 20022 validator absent (${found.absent})`;
  }
  const dir = mkdtempSync(join(tmpdir(), "pain008-"));
  try {
    const paths = Object.entries(files).map(([name, xml]) => {
      const path = join(dir, `${name}.xml`);
      writeFileSync(path, xml);
      return path;
    });
    const run = spawnSync(found.path, paths, { encoding: "utf8", timeout: 300_000 });
    const output = `${run.stdout ?? ""}${run.stderr ?? ""}`.replaceAll(`${dir}/`, "");
    if (run.status === 2 && !validatorRequired()) return `ISO 20022 validator cannot run: ${output.trim()}`;
    assert.equal(run.status, 0, `the schema refused files:\n${output}`);
    assert.equal(output.match(/^valid \S+ \(pain\.008\.001\.08\)$/gm)?.length, paths.length, output);
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("the whole loop: invoiced, collected, settled, returned (AM04), collected again as RCUR, settled again", {
  timeout: 300_000,
}, async (t) => {
  const w = await worker(t, "direct-debit-loop");
  const iban = "DE89370400440532013000";
  await w.expect(200, "PUT", "/customers/me/billing_profile", {
    json: {
      legal_name: "Müller & Söhne Gastronomie GmbH",
      street: "Hauptstraße 5",
      postcode: "80331",
      city: "München",
      country_code: "DE",
      email: "rechnung@mueller-soehne.example",
      direct_debit_iban: iban,
      direct_debit_mandate_reference: "MNDT-2026-0001",
      direct_debit_mandate_signed_on: "2026-01-15",
    },
  });
  const order = (
    await w.expect(201, "POST", "/card_orders", { json: { voucher_category: "meal", payment_method: "direct_debit" } })
  ).body.data[0];
  await w.expect(201, "POST", `/card_orders/${order.id}/entries`, {
    json: { voucher_owner_id: "owner-1", card_holder_name: "Ada Lovelace", amount: "48.50" },
  });
  await w.expect(200, "POST", `/card_orders/${order.id}/submit`);
  const invoice = (await w.expect(201, "POST", "/invoices", { json: { order_id: order.id } })).body.data[0];
  assert.equal(invoice.payment_method, "direct_debit");
  const amount = invoice.gross_amount;

  // Collected on the first TARGET2 day it is due.
  const date = firstOpenFrom(invoice.due_on);
  assert.ok(date >= earliestCollectionDate(today(), 1));
  const first = (await w.expect(201, "POST", "/direct_debit_collections", { json: { collection_date: date } })).body
    .data[0];
  assert.deepEqual([first.transactions_count, first.control_sum, first.state], [1, amount, "pending"]);
  const firstFile = await w.expect(200, "GET", `/direct_debit_collections/${first.id}/document`);
  assert.match(firstFile.headers.get("Content-Type"), /^application\/xml/);
  assert.equal(firstFile.headers.get("Content-Disposition"), `attachment; filename="${first.message_id}.xml"`);
  assert.equal((await w.expect(200, "GET", `/direct_debit_collections/${first.id}/document`)).text, firstFile.text);
  const [debit] = readPain008(firstFile.text, first).debits;
  assert.deepEqual(
    [debit.endToEndId, debit.sequence, debit.amount, debit.mandateId, debit.iban, debit.name],
    [invoice.number, "FRST", amount, "MNDT-2026-0001", iban, "Mueller + Soehne Gastronomie GmbH"],
  );

  // Settled: the bank's credit names the debit's end-to-end id.
  const credit = (endToEndId, ref) => ({
    amount,
    creditDebit: "credit",
    status: "BOOK",
    bookedOn: date,
    valueDate: date,
    accountServicerReference: ref,
    details: [{ endToEndId, debtorName: "Mueller + Soehne Gastronomie GmbH", debtorIban: iban }],
  });
  const settled = await statement(w, [credit(invoice.number, "SETTLE-1")]);
  assert.deepEqual([settled.matched_count, settled.unmatched_count], [1, 0]);
  assert.equal((await w.expect(200, "GET", `/invoices/${invoice.id}`)).body.data.state, "paid");
  assert.equal((await w.expect(200, "GET", `/direct_debit_collections/${first.id}`)).body.data.state, "settled");

  // Returned a few days later: insufficient funds, the bank's fee on top.
  const returnedOn = addDays(date, 3);
  const returned = await statement(
    w,
    [
      {
        amount: money(cents(amount) + 300),
        creditDebit: "debit",
        status: "BOOK",
        bookedOn: returnedOn,
        valueDate: returnedOn,
        reversal: true,
        accountServicerReference: "RETURN-1",
        details: [
          {
            endToEndId: invoice.number,
            creditorName: "Mueller + Soehne Gastronomie GmbH",
            creditorIban: iban,
            returnReason: "AM04",
          },
        ],
      },
    ],
    "camt.053.001.02",
  );
  assert.equal(returned.matched_count, 1);
  const reopened = (await w.expect(200, "GET", `/invoices/${invoice.id}`)).body.data;
  assert.deepEqual([reopened.state, reopened.paid_at], ["open", null]);
  const [returnTx] = (await w.expect(200, "GET", `/bank_transactions?bank_statement_id=${returned.id}`)).body.data;
  assert.deepEqual([returnTx.state, returnTx.allocated_amount, returnTx.unapplied_amount], ["matched", amount, "3.00"]);

  // Collected again, as RCUR, under a new end-to-end id.
  const secondDate = nextOpen(date);
  const second = (await w.expect(201, "POST", "/direct_debit_collections", { json: { collection_date: secondDate } }))
    .body.data[0];
  const secondFile = await w.expect(200, "GET", `/direct_debit_collections/${second.id}/document`);
  const [again] = readPain008(secondFile.text, second).debits;
  assert.deepEqual(
    [again.endToEndId, again.sequence, again.amount, again.mandateId, again.amendment ?? "false"],
    [`${invoice.number}-R2`, "RCUR", amount, "MNDT-2026-0001", "false"],
  );
  const skipped = validateAll({ first: firstFile.text, second: secondFile.text });
  if (skipped) t.diagnostic(`the files were not validated: ${skipped}`);

  // Settled again.
  const settledAgain = await statement(w, [credit(`${invoice.number}-R2`, "SETTLE-2")]);
  assert.equal(settledAgain.matched_count, 1);
  const paid = (await w.expect(200, "GET", `/invoices/${invoice.id}`)).body.data;
  assert.equal(paid.state, "paid");
  assert.equal((await w.expect(200, "GET", `/direct_debit_collections/${second.id}`)).body.data.state, "settled");
  const collections = (await w.expect(200, "GET", "/direct_debit_collections")).body.data;
  assert.deepEqual(
    collections.map((c) => [c.id, c.state]),
    [
      [second.id, "settled"],
      [first.id, "settled"],
    ],
  );

  // The invoice's payments: the returned one, then the one that stands.
  const payments = (await w.expect(200, "GET", `/invoices/${invoice.id}/payments`)).body.data;
  assert.deepEqual(
    payments.map((p) => [p.method, p.amount, p.booked_on, p.return_reason, p.returned_at === null]),
    [
      ["direct_debit", amount, date, "AM04", false],
      ["direct_debit", amount, date, null, true],
    ],
  );
  const balance = (await w.expect(200, "GET", `/invoices/${invoice.id}/balance`)).body.data;
  assert.deepEqual([balance.allocated_amount, balance.open_amount], [amount, "0.00"]);

  // Its events, oldest first, tell the same story.
  const events = (await w.expect(200, "GET", "/events?page_size=100")).body.data.reverse();
  // The invoice's e-mail (docs/api.md part 17) is sent beside the money's story, at its own time.
  const story = events.filter((e) => e.type !== "billing_profile.updated" && !e.type.startsWith("invoice_delivery."));
  assert.deepEqual(
    story.map((e) => e.type),
    [
      "card_order.submitted",
      "invoice.created",
      "payment.received",
      "invoice.paid",
      "payment.returned",
      "payment.received",
      "invoice.paid",
    ],
  );
  assert.deepEqual(story[4].data, payments[0]);
  assert.deepEqual(story[5].data, payments[1]);
  assert.equal(story[2].data.id, payments[0].id);
  assert.equal(story[2].data.returned_at, null);
  assert.deepEqual(story[6].data, paid);
});

// --- Collections of 1, 2 and 1,000 invoices, seeded.

/**
 * The seeded invoices: open, direct debit, due on their group's day, each with the buyer it was
 * issued to (its mandate), as src/writes/invoices.ts issues them; the INV sequence past them.
 */
function seedSql(invoices, year) {
  const createdAt = new Date().toISOString();
  return openInvoicesSql(
    invoices.map((i) => ({ ...i, createdAt })),
    { year, creditor: "Voucher Cards GmbH", paymentMethod: "direct_debit", description: "seeded" },
  );
}

test("collections of 1, 2 and 1,000 invoices: each file adds up and is valid against ISO's schema", {
  timeout: 600_000,
}, async (t) => {
  const found = iso20022Validator();
  if (found.absent) {
    assert.ok(!validatorRequired(), `the ISO 20022 validator is required in CI, but absent: ${found.absent}`);
    return t.skip(`ISO 20022 validator absent (${found.absent})`);
  }
  const year = Number(today().slice(0, 4));
  const one = earliestCollectionDate(today(), 1);
  const two = nextOpen(one);
  const thousand = nextOpen(two);
  const names = [
    "Müller & Söhne GmbH",
    "Bäckerei Groß KG",
    "Café Crème SARL",
    "Kantine Nord",
    `Sehr ${"lang ".repeat(20)}AG`,
  ];
  let n = 0;
  const invoice = (dueOn, customer, fields = {}) => {
    n += 1;
    const buyer = {
      customerId: customer,
      legalName: names[n % names.length],
      street: "Hauptstraße 5",
      postcode: "80331",
      city: "München",
      countryCode: "DE",
      vatId: null,
      buyerReference: null,
      leitwegId: null,
      email: "rechnung@example.com",
      directDebitIban: germanIban(1_000_000 + n),
      directDebitBic: n % 3 === 0 ? "COBADEFFXXX" : null,
      directDebitMandateReference: `MNDT-${customer}`,
      directDebitMandateSignedOn: "2026-01-15",
      documentLanguage: "de",
      ...fields,
    };
    return {
      id: randomUUID(),
      orderId: randomUUID(),
      customerId: customer,
      number: `INV-${year}-${String(n).padStart(6, "0")}`,
      dueOn,
      cents: 100 + ((n * 7919) % 999_900),
      buyer,
    };
  };
  // 1: one invoice. 2: the same mandate again on another account (RCUR, amended), and a new one (FRST).
  // 1,000: new mandates; every tenth a Swiss account (BIC and address), some with a BIC.
  const groups = [
    [invoice(one, "c0")],
    [invoice(two, "c0", { directDebitIban: germanIban(999) }), invoice(two, "c1")],
    Array.from({ length: 1000 }, (_, i) =>
      invoice(
        thousand,
        `c${i + 2}`,
        i % 10 === 0
          ? {
              countryCode: "CH",
              city: "Zürich",
              postcode: "8001",
              street: "Bahnhofstrasse 1",
              directDebitIban: "CH9300762011623852957",
              directDebitBic: "UBSWCHZH80A",
            }
          : {},
      ),
    ),
  ];
  const dir = mkdtempSync(join(tmpdir(), "dd-seed-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const seed = join(dir, "seed.sql");
  writeFileSync(seed, seedSql(groups.flat(), year));
  // wrangler's stderr, line by line: the Worker's error lines (an event not handed to the queue) are there.
  const errors = [];
  const w = await worker(t, "direct-debit-sizes", {
    seed,
    onErrorLine: (line) => {
      if (line.trim()) errors.push(line);
    },
  });

  const files = {};
  const collections = [];
  for (const [group, date] of [
    [groups[0], one],
    [groups[1], two],
    [groups[2], thousand],
  ]) {
    const started = Date.now();
    const created = await w.expect(201, "POST", "/direct_debit_collections", { json: { collection_date: date } });
    const collection = created.body.data[0];
    const document = await w.expect(200, "GET", `/direct_debit_collections/${collection.id}/document`);
    t.diagnostic(
      `${group.length} debits: collected and written in ${Date.now() - started} ms, ${document.text.length} bytes`,
    );
    const { blocks, debits } = readPain008(document.text, collection);
    assert.equal(collection.transactions_count, group.length);
    assert.equal(collection.control_sum, money(group.reduce((sum, i) => sum + i.cents, 0)));
    assert.deepEqual(debits.map((d) => d.endToEndId).sort(), group.map((i) => i.number).sort());
    for (const debit of debits) {
      const seeded = group.find((i) => i.number === debit.endToEndId);
      assert.equal(debit.amount, money(seeded.cents));
      assert.equal(debit.iban, seeded.buyer.directDebitIban);
      assert.equal(debit.country, seeded.buyer.countryCode === "CH" ? "CH" : undefined);
    }
    if (group.length === 2) {
      assert.deepEqual(
        blocks.map((b) => [b.sequence, b.count]),
        [
          ["FRST", 1],
          ["RCUR", 1],
        ],
      );
      const amended = debits.find((d) => d.sequence === "RCUR");
      assert.deepEqual([amended.amendment, amended.originalIban], ["true", groups[0][0].buyer.directDebitIban]);
    } else
      assert.deepEqual(
        blocks.map((b) => b.sequence),
        ["FRST"],
      );
    files[`collection-${group.length}`] = document.text;
    collections.push(collection);
  }
  assert.equal(validateAll(files), undefined);

  // The bank books the 1,000 debits as one batch credit without details: one transaction pays them all.
  const big = collections[2];
  const started = Date.now();
  const booked = await statement(w, [
    {
      amount: big.control_sum,
      creditDebit: "credit",
      status: "BOOK",
      bookedOn: thousand,
      valueDate: thousand,
      accountServicerReference: "BATCH-1000",
      batch: { paymentInformationId: `${big.message_id}-FRST`, count: 1000 },
    },
  ]);
  t.diagnostic(`a batch credit of 1,000 debits settled in ${Date.now() - started} ms`);
  assert.deepEqual([booked.transactions_count, booked.matched_count], [1, 1]);
  const [tx] = (await w.expect(200, "GET", `/bank_transactions?bank_statement_id=${booked.id}`)).body.data;
  assert.deepEqual([tx.state, tx.allocated_amount], ["matched", big.control_sum]);
  assert.equal((await w.expect(200, "GET", `/direct_debit_collections/${big.id}`)).body.data.state, "settled");
  // Its 2,000 events (payment.received, invoice.paid) went to the queue at once, not to the Cron
  // Trigger's sweep a minute later (CONTRACT part 11: the first attempt within 30 s of the change).
  const lost = errors.filter((line) => /"error":"events_not_(enqueued|recovered)"/.test(line));
  const summary = (line) => {
    const logged = JSON.parse(line.slice(line.indexOf("{"), line.lastIndexOf("}") + 1));
    return `${logged.error}: ${logged.event_ids.length} events (${logged.cause})`;
  };
  assert.deepEqual(lost.map(summary), [], "events of the batch settlement were not handed to the queue");
});
