// The camt.053 files of test/support/camt053-builder.ts against ISO's XML Schemas: a representative set
// (both versions; several statements; batches with and without details; returns, reversals, pending and
// INFO entries; 140-character remittance lines; umlauts and the characters XML escapes; amounts with
// zeros past the cent) and 40 random descriptions, each read back by src/payments/camt053.ts to what
// was described, then all passed to the offline validator in one call. The validator lives outside the
// repository and is named by ISO20022_VALIDATE (scripts/iso20022-validator.mjs). Without it the
// validation is skipped, except in CI (CI=true), where it is required.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { importSource } from "../../scripts/import-source.mjs";
import { iso20022Validator, validatorRequired } from "../../scripts/iso20022-validator.mjs";

const {
  camt053File,
  camt053Descriptions,
  describedFile,
  describedTransactions,
  inspectStatementFile,
  readStatement,
  sample,
} = await importSource(
  [
    'import fc from "fast-check";',
    'export * from "./test/support/camt053-builder";',
    'export { inspectStatementFile, readStatement } from "./src/payments/camt053";',
    "export const sample = (arbitrary, numRuns, seed) => fc.sample(arbitrary, { numRuns, seed });",
  ].join("\n"),
);

const SELLER = "DE02120300000000202051";
const ACME = "DE89370400440532013000";
const SCHMIDT = "DE75512108001245126199";
const LONG_LINE = `Rechnung INV-2026-000011 Müller & Söhne <Kantine> "Nord" ${"x".repeat(140)}`.slice(0, 140);

/** Entries showing every element the builder writes, in `version`. */
const entries = (version) => [
  {
    amount: "29.75",
    creditDebit: "credit",
    status: "BOOK",
    bookedOn: "2026-11-20",
    valueDate: "2026-11-20",
    accountServicerReference: "2026112000001",
    details: [
      {
        endToEndId: "NOTPROVIDED",
        debtorName: "Acme Kantinen GmbH",
        debtorIban: ACME,
        structuredReference: "RF13INV2026000004",
      },
    ],
  },
  {
    amount: "112.40",
    creditDebit: "credit",
    status: "BOOK",
    bookedOn: "2026-11-20",
    details: [
      {
        endToEndId: "PO 4711",
        debtorName: "Bäckerei Schmidt & Söhne KG <Filiale Süd>",
        debtorIban: SCHMIDT,
        unstructured: [LONG_LINE, "INV 2026 6 und inv-2026-000007", " ß € ' \" "],
      },
    ],
  },
  {
    amount: "75.00",
    creditDebit: "credit",
    status: "BOOK",
    bookedOn: "2026-11-20",
    accountServicerReference: "2026112000004",
    batch: { paymentInformationId: "DDC-2026-11-20-RCUR", count: 2 },
    details: [
      {
        amount: "25.00",
        accountServicerReference: "2026112000004-1",
        endToEndId: "INV-2026-000008",
        debtorName: "Acme",
        debtorIban: ACME,
      },
      {
        amount: "50.000",
        accountServicerReference: "2026112000004-2",
        endToEndId: "INV-2026-000009-R2",
        debtorIban: SCHMIDT,
      },
    ],
  },
  {
    amount: "120.00",
    creditDebit: "credit",
    status: "BOOK",
    bookedOn: "2026-11-20",
    batch: { paymentInformationId: "DDC-FRST", count: 3 },
  },
  {
    amount: "25.00",
    creditDebit: "debit",
    status: "BOOK",
    bookedOn: "2026-11-21",
    reversal: true,
    accountServicerReference: "2026112100001",
    details: [
      { endToEndId: "INV-2026-000008", creditorName: "Acme Kantinen GmbH", creditorIban: ACME, returnReason: "AM04" },
    ],
  },
  {
    amount: "28.50",
    creditDebit: "debit",
    status: "BOOK",
    bookedOn: "2026-11-21",
    details: [{ amount: "28.50", endToEndId: "INV-2026-000012", creditorIban: ACME, returnReason: "MD06" }],
  },
  {
    amount: "4.90",
    creditDebit: "debit",
    status: "BOOK",
    bookedOn: "2026-11-21",
    details: [{ creditorName: "Musterbank AG", unstructured: ["Kontoführung"] }],
  },
  {
    amount: "10.00",
    creditDebit: "credit",
    status: "PDNG",
    valueDate: "2026-11-22",
    details: [{ unstructured: ["INV-2026-000010"] }],
  },
  { amount: "0.01", creditDebit: "credit", status: "INFO", reversal: false },
  { amount: "999999999.99000", currency: "CHF", creditDebit: "credit", status: "BOOK", bookedOn: "2026-11-21" },
  ...(version === "camt.053.001.08"
    ? [
        {
          amount: "40.00",
          creditDebit: "credit",
          status: "OTHR",
          bookedOn: "2026-11-21",
          details: [
            // A detail's own CdtDbtInd, in its entry's direction (CONTRACT part 15: a contradicting one fails it).
            { amount: "35.00", creditDebit: "credit", debtorName: "Acme", debtorIban: ACME },
            { amount: "5.00", creditDebit: "credit", debtorName: "Acme", endToEndId: "FEE-1" },
          ],
        },
      ]
    : []),
];

const REPRESENTATIVE = ["camt.053.001.02", "camt.053.001.08"].map((version) => ({
  version,
  messageId: `STMT-2026-11-21-${version.slice(-2)}-MSG`,
  statements: [
    { id: "STMT-2026-11-21-A", iban: SELLER, from: "2026-11-20", to: "2026-11-21", entries: entries(version) },
    { id: "STMT-2026-11-21-B", iban: SELLER, from: "2026-11-21", to: "2026-11-21", entries: entries(version).slice(4) },
    { id: "STMT-2026-11-22", iban: SELLER, entries: [] },
  ],
}));
const DESCRIPTIONS = [...REPRESENTATIVE, ...sample(camt053Descriptions, 40, 20261121)];

test("every file reads back to what was described", () => {
  for (const description of DESCRIPTIONS) {
    const bytes = new TextEncoder().encode(camt053File(description));
    assert.deepStrictEqual(inspectStatementFile(bytes), describedFile(description));
    description.statements.forEach((_, index) =>
      assert.deepStrictEqual(readStatement(bytes, index), describedTransactions(description, index)),
    );
  }
  const transactions = readStatement(new TextEncoder().encode(camt053File(REPRESENTATIVE[1])), 0);
  assert.equal(transactions[1].remittanceInformation, `${LONG_LINE} INV 2026 6 und inv-2026-000007 ß € ' "`);
  assert.equal(transactions[1].counterpartyName, "Bäckerei Schmidt & Söhne KG <Filiale Süd>");
});

test("descriptions the schema would refuse are refused by the builder", () => {
  const file = (version, entry, statement = {}) =>
    camt053File({ version, messageId: "M", statements: [{ id: "S", iban: SELLER, entries: [entry], ...statement }] });
  const entry = { amount: "1.00", creditDebit: "credit", status: "BOOK" };
  assert.throws(() => file("camt.053.001.02", { ...entry, status: "OTHR" }), /status OTHR is not one V02 allows/);
  assert.throws(() => file("camt.053.001.08", { ...entry, amount: "1.000001" }), /not an amount the schema allows/);
  assert.throws(() => file("camt.053.001.08", { ...entry, bookedOn: "2026-02-29" }), /not a calendar date/);
  assert.throws(() => file("camt.053.001.08", { ...entry, details: [{ debtorName: "x".repeat(141) }] }), /1 to 140/);
  assert.throws(
    () => file("camt.053.001.08", { ...entry, details: [{ debtorIban: "de89370400440532013000" }] }),
    /IBAN/,
  );
  assert.throws(() => file("camt.053.001.02", { ...entry, details: [{ creditDebit: "debit" }] }), /no CdtDbtInd/);
  assert.throws(() => file("camt.053.001.08", entry, { from: "2026-11-20" }), /both from and to/);
});

test("ISO's XML Schema accepts every file, in both versions", (t) => {
  const found = iso20022Validator();
  const required = validatorRequired();
  if (found.absent) {
    assert.ok(!required, `the ISO 20022 validator is required in CI, but absent: ${found.absent}`);
    return t.skip(`ISO 20022 validator absent (${found.absent})`);
  }
  const dir = mkdtempSync(join(tmpdir(), "camt053-"));
  try {
    const files = DESCRIPTIONS.map((description, index) => {
      const file = join(dir, `${index}.${description.version}.xml`);
      writeFileSync(file, camt053File(description));
      return file;
    });
    const run = spawnSync(found.path, files, { encoding: "utf8", timeout: 300_000 });
    const output = `${run.stdout ?? ""}${run.stderr ?? ""}`.replaceAll(`${dir}/`, "");
    if (run.status === 2 && !required) return t.skip(`ISO 20022 validator cannot run: ${output.trim()}`);
    assert.equal(run.status, 0, `the schema refused files:\n${output}`);
    assert.equal(output.match(/^valid \S+ \(camt\.053\.001\.0[28]\)$/gm)?.length, files.length, output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
