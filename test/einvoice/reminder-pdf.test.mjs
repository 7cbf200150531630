// The reminder letters (docs/api.md part 18, src/documents/pdf/reminder.ts) read back as a person and a
// banking app read them: what poppler's pdftotext reads off the page holds every item part 18 lists, for
// each level, in German and in English, for a business and a consumer; `read-qr` (EINVOICE_READ_QR: page 1
// at 200 dpi, zbar) reads the GiroCode with the reminder's total and the invoice's RF reference; the file
// embeds nothing (no e-invoice), declares PDF/A-2b, and is the same bytes for the same letter. Poppler is
// found on PATH; each tool is skipped when absent, saying so, except under CI=true.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { command, qrReader, readQr, validatorRequired } from "../../scripts/einvoice-validator.mjs";
import { paymentReference } from "./fixtures.mjs";
import { PROFILES, SELLER_VARS } from "./parties.mjs";
import { reminderFigures, renderReminderPdf, reminderInput } from "./reminders.mjs";

const dir = mkdtempSync(join(tmpdir(), "reminder-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function tool(t, found) {
  if (!found.absent) return found.path;
  assert.ok(!validatorRequired(), `required in CI, but absent: ${found.absent}`);
  t.skip(found.absent);
  return null;
}

async function write(name, input) {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, await renderReminderPdf(input));
  return file;
}

/** The page as laid out (rows), and as running text (paragraphs joined, spaces collapsed). */
function read(pdftotext, file) {
  const run = (args) => spawnSync(pdftotext, [...args, "-enc", "UTF-8", file, "-"], { encoding: "utf8" });
  const layout = run(["-layout"]);
  assert.equal(layout.status, 0, layout.stderr);
  const nbsp = (text) => text.replaceAll("\u00a0", " ");
  return { rows: nbsp(layout.stdout), text: nbsp(run([]).stdout).replace(/\s+/g, " ") };
}

const literally = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const row = (label, value) => new RegExp(`${literally(label)} +${literally(value)}`);
const groupsOfFour = (text) => text.replace(/(.{4})(?=.)/g, "$1 ");

// --- What each letter must say, written here rather than imported.

const WORDS = {
  de: {
    titles: ["Zahlungserinnerung", "1. Mahnung", "Letzte Mahnung"],
    heading: (title, number) => `${title} – Rechnung ${number}`,
    day: (iso) => iso.split("-").reverse().join("."),
    euro: (cents) =>
      `${String(Math.trunc(cents / 100)).replace(/\B(?=(\d{3})+$)/g, ".")},${String(cents % 100).padStart(2, "0")} €`,
    date: "Datum",
    invoiceNumber: "Rechnungsnummer",
    invoiceDate: "Rechnungsdatum",
    due: "Fällig am",
    since: "Verzug seit",
    gross: "Rechnungsbetrag",
    received: "abzüglich erhaltener Zahlungen",
    open: "Offener Rechnungsbetrag",
    interest: (from, to) => `Verzugszinsen vom ${from} bis ${to}`,
    basis: (consumer, rate) =>
      `Basiszinssatz (§ 247 BGB) + ${consumer ? 5 : 9} Prozentpunkte, § 288 Abs. ${consumer ? 1 : 2} BGB; derzeit ${rate} p. a.`,
    rate: (percent) => `${percent.replace(".", ",")} %`,
    fee: "Verzugspauschale (§ 288 Abs. 5 BGB)",
    total: "Gesamtbetrag",
    transfer: (amount, day) => `Bitte überweisen Sie ${amount} bis zum ${day} ohne Abzug auf dieses Konto:`,
    remittance: "Verwendungszweck",
    court: "Mahnbescheid im gerichtlichen Mahnverfahren (§§ 688 ff. ZPO)",
    noVat: "unterliegen nicht der Umsatzsteuer",
    directors: "Geschäftsführung: Jürgen Weiß, Dr. Anna Schäfer",
    page: "Seite 1 von 1",
  },
  en: {
    titles: ["Payment reminder", "Reminder", "Final reminder"],
    heading: (title, number) => `${title} – invoice ${number}`,
    day: (iso) => {
      const [y, m, d] = iso.split("-");
      const months = "January February March April May June July August September October November December";
      return `${Number(d)} ${months.split(" ")[Number(m) - 1]} ${y}`;
    },
    euro: (cents) =>
      `${String(Math.trunc(cents / 100)).replace(/\B(?=(\d{3})+$)/g, ",")}.${String(cents % 100).padStart(2, "0")} €`,
    date: "Date",
    invoiceNumber: "Invoice number",
    invoiceDate: "Invoice date",
    due: "Due on",
    since: "In default since",
    gross: "Invoice amount",
    received: "less payments received",
    open: "Open invoice amount",
    interest: (from, to) => `Default interest from ${from} to ${to}`,
    basis: (consumer, rate) =>
      `base rate (§ 247 BGB) + ${consumer ? 5 : 9} percentage points, § 288 (${consumer ? 1 : 2}) BGB; currently ${rate} p.a.`,
    rate: (percent) => `${percent} %`,
    fee: "Flat-rate default charge (§ 288 (5) BGB)",
    total: "Total",
    transfer: (amount, day) => `Please transfer ${amount} by ${day} without deduction to this account:`,
    remittance: "Reference",
    court: "court dunning procedure (gerichtliches Mahnverfahren, §§ 688 et seq. ZPO)",
    noVat: "not subject to VAT",
    directors: "Managing directors: Jürgen Weiß, Dr. Anna Schäfer",
    page: "Page 1 of 1",
  },
};

/**
 * CONTRACT part 18's figures, worked out by hand (cents; interest = Σ days × open × rate / 3,650,000,
 * half up): level 2 on 2025-07-10, 10 days of 1,000.00 at 11.27 % (business) or 7.27 % (consumer) and 10
 * at 10.27 % or 6.27 %; level 3 on 2025-07-24, 14 more days of 1,000.00 and 10 of 500.00 at the July rate.
 */
const EXPECTED = {
  business: {
    1: { open: 100_000, interest: 0, fee: 0, total: 100_000, percent: null, payBy: "2025-06-30" },
    // 3.0877 + 2.8137 = 5.9014
    2: { open: 100_000, interest: 590, fee: 4000, total: 104_590, percent: "10.27", payBy: "2025-07-20" },
    // (1,127,000,000 + 1,437,800,000 + 513,500,000) / 3,650,000 = 843.37
    3: { open: 50_000, interest: 843, fee: 4000, total: 54_843, percent: "10.27", payBy: "2025-08-03" },
  },
  consumer: {
    1: { open: 100_000, interest: 0, fee: 0, total: 100_000, percent: null, payBy: "2025-06-30" },
    // (727,000,000 + 627,000,000) / 3,650,000 = 370.96
    2: { open: 100_000, interest: 371, fee: 0, total: 100_371, percent: "6.27", payBy: "2025-07-20" },
    // (727,000,000 + 877,800,000 + 313,500,000) / 3,650,000 = 525.56
    3: { open: 50_000, interest: 526, fee: 0, total: 50_526, percent: "6.27", payBy: "2025-08-03" },
  },
};
const ISSUED = { 1: "2025-06-20", 2: "2025-07-10", 3: "2025-07-24" };

const CASES = ["de", "en"].flatMap((language) =>
  [false, true].flatMap((consumer) => [1, 2, 3].map((level) => ({ language, consumer, level }))),
);

test("every letter holds what part 18 lists, per level and language", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  const buyer = PROFILES.DE;
  const number = "INV-2025-000123";
  for (const { language, consumer, level } of CASES) {
    const name = `${language}-${consumer ? "consumer" : "business"}-${level}`;
    const w = WORDS[language];
    const x = EXPECTED[consumer ? "consumer" : "business"][level];
    const { rows, text } = read(pdftotext, await write(name, reminderInput(level, language, { consumer })));
    const has = (phrase) => assert.ok(text.includes(phrase), `${name}: ${phrase}\n${text}`);
    const lacks = (phrase) => assert.ok(!text.includes(phrase), `${name} must not say: ${phrase}`);
    const shows = (pattern) => assert.match(rows, pattern, name);
    // The seller's letterhead and footer (part 14), the buyer's address.
    has(SELLER_VARS.CREDITOR_NAME);
    has(`${SELLER_VARS.CREDITOR_STREET} · ${SELLER_VARS.CREDITOR_POSTCODE} ${SELLER_VARS.CREDITOR_CITY}`);
    for (const part of [buyer.legalName, buyer.street, `${buyer.postcode} ${buyer.city}`]) has(part);
    for (const part of [w.directors, SELLER_VARS.CREDITOR_REGISTRATION_ID, SELLER_VARS.CREDITOR_VAT_ID, w.page])
      has(part);
    has(SELLER_VARS.CREDITOR_CONTACT_PHONE);
    // Title, date, the invoice's number, date and due date.
    has(w.heading(w.titles[level - 1], number));
    shows(row(w.date, w.day(ISSUED[level])));
    shows(row(w.invoiceNumber, number));
    shows(row(w.invoiceDate, w.day("2025-05-30")));
    shows(row(w.due, w.day("2025-06-13")));
    // The amounts: open, interest (rate, period, amount, § 288 BGB) and fee from level 2, the total.
    shows(row(w.open, w.euro(x.open)));
    // What was paid already, when anything was (level 3: 500.00 of 1,000.00).
    if (level === 3) {
      shows(new RegExp(`\\n${literally(w.gross)} +${literally(w.euro(100_000))}`));
      shows(row(w.received, `−${w.euro(50_000)}`));
    } else lacks(w.received);
    if (level === 1) {
      for (const phrase of [w.since, w.interest(w.day("2025-06-21"), w.day(ISSUED[1])), "§ 288", w.fee]) lacks(phrase);
    } else {
      shows(row(w.since, w.day("2025-06-21")));
      shows(row(w.interest(w.day("2025-06-21"), w.day(ISSUED[level])), w.euro(x.interest)));
      has(w.basis(consumer, w.rate(x.percent)));
      has(w.noVat);
      if (consumer) lacks(w.fee);
      else shows(row(w.fee, w.euro(x.fee)));
    }
    shows(row(w.total, w.euro(x.total)));
    // How to pay: the total by pay_by, the seller's IBAN, the invoice's RF reference.
    has(w.transfer(w.euro(x.total), w.day(x.payBy)));
    has(groupsOfFour(SELLER_VARS.CREDITOR_IBAN));
    shows(row(w.remittance, groupsOfFour(paymentReference(number))));
    // Level 3 announces the court dunning procedure; the others do not.
    if (level === 3) has(w.court);
    else lacks(w.court);
  }
});

test("the GiroCode is the reminder's total to the seller, with the invoice's RF reference", async (t) => {
  const reader = tool(t, qrReader());
  if (!reader) return;
  const number = "INV-2025-000123";
  for (const [level, language, consumer, sellerVars] of [
    [2, "de", false, {}],
    [3, "en", true, { CREDITOR_BIC: "" }],
  ]) {
    const file = await write(`qr-${level}`, reminderInput(level, language, { consumer, sellerVars }));
    const read = readQr(reader, file);
    if (read.absent) {
      tool(t, read);
      return;
    }
    const { total } = EXPECTED[consumer ? "consumer" : "business"][level];
    const amount = `EUR${Math.trunc(total / 100)}.${String(total % 100).padStart(2, "0")}`;
    assert.deepEqual(read.codes, [
      [
        "BCD",
        "002",
        "1",
        "SCT",
        sellerVars.CREDITOR_BIC ?? SELLER_VARS.CREDITOR_BIC,
        SELLER_VARS.CREDITOR_NAME,
        SELLER_VARS.CREDITOR_IBAN,
        amount,
        "",
        paymentReference(number),
      ],
    ]);
  }
});

test("a letter embeds nothing, is a PDF/A-2b without Factur-X, and is the same bytes for the same letter", async (t) => {
  const input = reminderInput(2, "de");
  const [first, second] = [await renderReminderPdf(input), await renderReminderPdf(reminderInput(2, "de"))];
  assert.deepEqual(Buffer.from(first), Buffer.from(second));
  const other = await renderReminderPdf(reminderInput(2, "de", { number: "INV-2025-000124" }));
  assert.notDeepEqual(Buffer.from(other), Buffer.from(first));
  const raw = Buffer.from(first).toString("latin1");
  assert.ok(raw.startsWith("%PDF-1.7\n"));
  assert.ok(raw.includes("<pdfaid:part>2</pdfaid:part>") && raw.includes("<pdfaid:conformance>B</pdfaid:conformance>"));
  for (const absent of ["/EmbeddedFile", "/AF ", "/AF[", "factur-x", "/Filespec"])
    assert.ok(!raw.includes(absent), absent);
  assert.ok(raw.includes("/OutputIntents"));
  const pdfdetach = tool(t, command("pdfdetach"));
  if (!pdfdetach) return;
  const file = join(dir, "attachments.pdf");
  writeFileSync(file, first);
  assert.equal(spawnSync(pdfdetach, ["-list", file], { encoding: "utf8" }).stdout.trim(), "0 embedded files");
});

test("a letter refuses a malformed seller variable and an invoice without its buyer", async () => {
  await assert.rejects(renderReminderPdf(reminderInput(1, "de", { sellerVars: { CREDITOR_IBAN: "DE00" } })), {
    name: "MalformedBillingVariable",
    message: "CREDITOR_IBAN is malformed",
  });
  const input = reminderInput(1, "de");
  await assert.rejects(renderReminderPdf({ ...input, invoice: { ...input.invoice, buyer: null } }), {
    message: "INV-2025-000123 was issued without the buyer's data",
  });
});

test("a long account of interest runs onto a second page, its header repeated, every period once", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  // A payment of 10.00 every other day and its return the next: from 21 June to 19 August, 60 one-day periods.
  const changes = [];
  for (let i = 0; i < 30; i++) {
    const day = (n) => new Date(Date.UTC(2025, 5, 21 + n)).toISOString().slice(0, 10);
    changes.push({ on: day(2 * i), cents: -1000 }, { on: day(2 * i + 1), cents: 1000 });
  }
  const input = reminderInput(3, "de");
  const reminder = reminderFigures({
    level: 3,
    issuedOn: "2025-08-19",
    language: "de",
    consumer: false,
    defaultSince: "2025-06-21",
    timeline: { openCents: 100_000, changes },
  });
  assert.equal(reminder.interestPeriods.length, 60);
  const file = await write("long", { ...input, reminder });
  const run = spawnSync(pdftotext, ["-layout", "-enc", "UTF-8", file, "-"], { encoding: "utf8" });
  const pages = run.stdout.replaceAll("\u00a0", " ").split("\f").slice(0, -1);
  assert.equal(pages.length, 2);
  assert.match(pages[1], /Letzte Mahnung – Rechnung INV-2025-000123 \(Fortsetzung\)/);
  assert.match(pages[1], /Zeitraum +Tage +Offener Betrag € +Zinssatz p\. a\./);
  assert.match(pages[1], /Seite 2 von 2/);
  const rows = pages.join("\n").match(/^ *\d\d\.\d\d\.2025 – \d\d\.\d\d\.2025 .*$/gm);
  assert.equal(rows.length, 60);
  assert.deepEqual(
    rows.map((line) => line.trim().slice(0, 23)),
    reminder.interestPeriods.map(
      (p) => `${p.from.split("-").reverse().join(".")} – ${p.to.split("-").reverse().join(".")}`,
    ),
  );
  assert.match(pages.join("\n"), /Gesamtbetrag +[\d.]+,\d\d €/);
  assert.match(pages[1], /Mit freundlichen Grüßen/);
});

/** Words of each page whose boxes overlap (pdftotext -bbox), a box shrunk to the middle of its line. */
function collisions(pdftotext, file) {
  const run = spawnSync(pdftotext, ["-bbox", file, "-"], { encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(run.status, 0, run.stderr);
  const found = [];
  run.stdout
    .split("<page ")
    .slice(1)
    .forEach((page, p) => {
      const words = [
        ...page.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</g),
      ].map(([, x0, y0, x1, y1, word]) => {
        const [top, bottom] = [Number(y0), Number(y1)];
        const inset = (bottom - top) * 0.3;
        return { x0: Number(x0) + 0.3, x1: Number(x1) - 0.3, y0: top + inset, y1: bottom - inset, word };
      });
      for (let i = 0; i < words.length; i++)
        for (let j = i + 1; j < words.length; j++) {
          const [a, b] = [words[i], words[j]];
          if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1)
            found.push(`page ${p + 1}: ${a.word} / ${b.word}`);
        }
    });
  return found;
}

test("no two words on a page overlap: every level and language, a long seller name, buyers abroad and public", async (t) => {
  const pdftotext = tool(t, command("pdftotext"));
  if (!pdftotext) return;
  const long = {
    CREDITOR_NAME: "Gutscheinwerk Süd Vertriebs- und Produktionsgesellschaft für Gutscheinkarten mbH & Co. KG",
  };
  const letters = [
    ...CASES.map(({ language, consumer, level }) => [
      `${language}-${consumer}-${level}`,
      { consumer },
      level,
      language,
    ]),
    ["long-seller", { sellerVars: long }, 3, "de"],
    ["public", { buyer: "DE-public" }, 3, "de"],
    ["abroad", { buyer: "CH" }, 2, "en"],
  ];
  for (const [name, options, level, language] of letters) {
    const file = await write(`overlap-${name}`, reminderInput(level, language, options));
    assert.deepEqual(collisions(pdftotext, file), [], name);
  }
});
