/// <reference types="vite/client" />
// Reading camt.053 bank statements (src/payments/camt053.ts), inside workerd as the jobs Worker runs it: the
// two samples beside the ISO schemas (copied into test/fixtures), every refusal with its exact error, and
// files from test/support/camt053-builder.ts read back to what was described, in both versions.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CamtError,
  type CamtErrorReason,
  type CamtVersion,
  inspectStatementFile,
  readStatement,
  type StatementSummary,
} from "../src/payments/camt053";
import sample02 from "./fixtures/camt053.02.sample.xml?raw";
import sample08 from "./fixtures/camt053.08.sample.xml?raw";
import { SAMPLE_FILES, SAMPLE_TRANSACTIONS } from "./fixtures/camt053-sample";
import {
  type Camt053Description,
  type Camt053Detail,
  type Camt053Entry,
  camt053Descriptions,
  camt053File,
  describedFile,
  describedTransactions,
} from "./support/camt053-builder";

const NAMESPACE = "urn:iso:std:iso:20022:tech:xsd:";
const bytes = (text: string) => new TextEncoder().encode(text);
const VERSIONS: CamtVersion[] = ["camt.053.001.02", "camt.053.001.08"];
const IBAN = "DE02120300000000202051";

/** The CamtError `read` throws, as { reason, message }. */
function refusal(read: () => unknown): { reason: CamtErrorReason; message: string } {
  try {
    read();
  } catch (error) {
    if (error instanceof CamtError) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error("read without refusal");
}

/** A file of one statement of `entries`. */
const file = (version: CamtVersion, entries: Camt053Entry[]) =>
  camt053File({ version, messageId: "MSG-1", statements: [{ id: "STMT-1", iban: IBAN, entries }] });
/** `xml` with the first `from` after the first <Ntry> (past the balances) replaced. */
const inEntry = (xml: string, from: string, to: string) => {
  const start = xml.indexOf("<Ntry>");
  return xml.slice(0, start) + xml.slice(start).replace(from, to);
};
const entry = (overrides: Partial<Camt053Entry> = {}): Camt053Entry => ({
  amount: "12.34",
  creditDebit: "credit",
  status: "BOOK",
  bookedOn: "2026-11-20",
  accountServicerReference: "2026112000003",
  ...overrides,
});

describe("camt.053: the samples", () => {
  it.each([
    ["08", sample08],
    ["02", sample02],
  ] as const)("reads the camt.053.001.%s sample's statement and its eight transactions", (version, xml) => {
    expect(inspectStatementFile(bytes(xml))).toStrictEqual(SAMPLE_FILES[version]);
    expect(readStatement(bytes(xml), 0)).toStrictEqual(SAMPLE_TRANSACTIONS);
  });

  it("reads a prefixed namespace and skips what a bank adds, in its own namespace or camt's", () => {
    const prefixed = sample08
      .replace(/^<\?xml[^>]*>\s*/, "")
      .replaceAll("</", "\u0000")
      .replaceAll("<", "<c:")
      .replaceAll("\u0000", "</c:")
      .replace('xmlns="', 'xmlns:c="');
    const extra =
      '<x:Amt xmlns:x="urn:example:bank" Ccy="EUR">99.999</x:Amt><AddtlTxInf>Sammler &amp; Co</AddtlTxInf>' +
      "<SplmtryData><Envlp><Amt>not one</Amt></Envlp></SplmtryData>";
    const extended = sample08.replaceAll("</TxDtls>", `${extra}</TxDtls>`).replace("<Ntry>", "<!-- a bank --><Ntry>");
    for (const xml of [prefixed, extended]) {
      expect(inspectStatementFile(bytes(xml))).toStrictEqual(SAMPLE_FILES["08"]);
      expect(readStatement(bytes(xml), 0)).toStrictEqual(SAMPLE_TRANSACTIONS);
    }
  });
});

describe("camt.053: refusals", () => {
  const v08 = file("camt.053.001.08", [entry()]);
  it.each([
    [
      "not XML",
      "Betrag;Datum\n12,34;2026-11-20",
      "not_xml",
      "the file is not well-formed XML: 2:16: text data outside of root node.",
    ],
    ["empty", "", "not_xml", "the file is not well-formed XML: 1:0: document must contain a root element."],
    ["truncated", sample08.slice(0, 3000), "not_xml", "the file is not well-formed XML: 2:2961: unclosed tag: Fmly"],
    [
      "two roots",
      `${sample08}<Document/>`,
      "not_xml",
      "the file is not well-formed XML: 3:10: documents may contain only one root.",
    ],
    [
      "an entity of a DTD",
      `<!DOCTYPE Document [<!ENTITY a "b">]><Document xmlns="${NAMESPACE}camt.053.001.08">&a;</Document>`,
      "not_xml",
      "the file is not well-formed XML: 1:105: undefined entity.",
    ],
    [
      "Latin-1",
      '<?xml version="1.0" encoding="ISO-8859-1"?><Document/>',
      "not_xml",
      "the file declares the encoding ISO-8859-1, and ISO 20022 files are UTF-8",
    ],
    [
      "another root",
      '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>',
      "not_camt053",
      "the root element is <Invoice> of namespace urn:oasis:names:specification:ubl:schema:xsd:Invoice-2, " +
        "not a camt.053 Document",
    ],
    [
      "no namespace",
      "<Document><BkToCstmrStmt/></Document>",
      "not_camt053",
      "the root element is <Document>, not a camt.053 Document",
    ],
    [
      "camt.052",
      sample08.replaceAll("camt.053.001.08", "camt.052.001.08"),
      "not_camt053",
      "the file is a camt.052.001.08 document, not camt.053",
    ],
    [
      "camt.053.001.04",
      sample08.replaceAll("camt.053.001.08", "camt.053.001.04"),
      "unsupported_version",
      "camt.053.001.04 is not supported: only camt.053.001.02 and camt.053.001.08 are",
    ],
    [
      "no statement",
      `<Document xmlns="${NAMESPACE}camt.053.001.02"/>`,
      "malformed",
      "the file holds no statement (BkToCstmrStmt/Stmt)",
    ],
    [
      "a bad FrToDt",
      sample02.replace("2026-11-20T00:00:00", "2026-11-31T00:00:00"),
      "malformed",
      'statement 1 (Id STMT-2026-11-21-02): FrToDt/FrDtTm "2026-11-31T00:00:00" is not a date-time',
    ],
  ] as const)("%s", (_, xml, reason, message) => {
    expect(refusal(() => inspectStatementFile(bytes(xml)))).toStrictEqual({ reason, message });
    expect(refusal(() => readStatement(bytes(xml), 0))).toStrictEqual({ reason, message });
  });

  it("refuses bytes that are not UTF-8", () => {
    expect(
      refusal(() => inspectStatementFile(Uint8Array.from([0x3c, 0x61, 0xe4, 0x3e, 0x3c, 0x2f, 0x61, 0x3e]))),
    ).toStrictEqual({
      reason: "not_xml",
      message: "the file is not UTF-8 text (bytes 0 to 8)",
    });
  });

  const where = "entry 1 (AcctSvcrRef 2026112000003)";
  it.each([
    ["a comma", inEntry(v08, ">12.34<", ">12,34<"), `${where}: amount "12,34" is not a decimal amount`],
    ["a sign", inEntry(v08, ">12.34<", ">-12.34<"), `${where}: amount "-12.34" is not a decimal amount`],
    [
      "a digit past the cent",
      file("camt.053.001.08", [entry({ amount: "18.151" })]),
      `${where}: amount 18.151 has a digit past the cent`,
    ],
    ["no currency", inEntry(v08, ' Ccy="EUR">12.34', ">12.34"), `${where}: amount has no currency (Ccy)`],
    [
      "a day that is not",
      inEntry(v08, ">2026-11-20<", ">2026-02-30<"),
      `${where}: booking date "2026-02-30" is not a calendar date`,
    ],
    [
      "a bad indicator",
      inEntry(v08, ">CRDT<", ">CRED<"),
      `${where}: credit/debit indicator "CRED" is neither CRDT nor DBIT`,
    ],
    [
      "no AcctSvcrRef",
      file("camt.053.001.02", [entry(), entry({ accountServicerReference: undefined, amount: "1.001" })]),
      "entry 2: amount 1.001 has a digit past the cent",
    ],
    [
      "a detail without amount among several",
      file("camt.053.001.08", [entry({ details: [{ amount: "10.00" }, { endToEndId: "E2E-2" }] })]),
      `${where}, detail 2: no amount (Amt), and the entry has 2 details`,
    ],
    [
      "a detail's bad amount",
      file("camt.053.001.02", [entry({ details: [{ amount: "1.00" }, { amount: "2.345" }] })]),
      `${where}, detail 2: amount 2.345 has a digit past the cent`,
    ],
  ])("a malformed entry fails its statement, naming the entry: %s", (_, xml, message) => {
    expect(refusal(() => readStatement(bytes(xml), 0))).toStrictEqual({ reason: "malformed", message });
    expect(inspectStatementFile(bytes(xml)).statements).toHaveLength(1);
  });

  it("prefers not_xml to a malformed amount in a truncated file, and knows the statement's count", () => {
    const bad = file("camt.053.001.08", [entry({ amount: "1.001" }), entry()]);
    expect(refusal(() => readStatement(bytes(bad.slice(0, -40)), 0)).reason).toBe("not_xml");
    expect(() => readStatement(bytes(bad), 1)).toThrow(RangeError);
  });
});

describe("camt.053: what a statement holds", () => {
  it.each(VERSIONS)("%s: several statements, each with its header; one malformed fails only itself", (version) => {
    const description: Camt053Description = {
      version,
      messageId: "MSG-2026-11-22",
      statements: [
        {
          id: "STMT-A",
          iban: IBAN,
          from: "2026-11-20",
          to: "2026-11-20",
          entries: [entry(), entry({ amount: "18.150" })],
        },
        { id: "STMT-B", iban: "DE89370400440532013000", entries: [entry({ amount: "5.001" })] },
        { id: "STMT-C", iban: IBAN, from: "2026-11-22", to: "2026-11-23", entries: [] },
      ],
    };
    const xml = bytes(camt053File(description));
    const statements: StatementSummary[] = [
      { index: 0, id: "STMT-A", accountIban: IBAN, fromDate: "2026-11-20", toDate: "2026-11-20", transactionsCount: 2 },
      {
        index: 1,
        id: "STMT-B",
        accountIban: "DE89370400440532013000",
        fromDate: null,
        toDate: null,
        transactionsCount: 1,
      },
      { index: 2, id: "STMT-C", accountIban: IBAN, fromDate: "2026-11-22", toDate: "2026-11-23", transactionsCount: 0 },
    ];
    expect(inspectStatementFile(xml)).toStrictEqual({ version, messageId: "MSG-2026-11-22", statements });
    expect(readStatement(xml, 0).map((t) => t.amountCents)).toStrictEqual([1234, 1815]);
    expect(refusal(() => readStatement(xml, 1)).message).toBe(
      "entry 1 (AcctSvcrRef 2026112000003): amount 5.001 has a digit past the cent",
    );
    expect(readStatement(xml, 2)).toStrictEqual([]);
  });

  it.each(VERSIONS)(
    "%s: a batch with details, one without, a reversal with return information, V02 INFO",
    (version) => {
      const details: Camt053Detail[] = [
        { amount: "25.00", endToEndId: "INV-2026-000008", debtorName: "Müller & Söhne <GmbH>" },
        { amount: "50.00", endToEndId: "INV-2026-000009", accountServicerReference: "D-2" },
      ];
      const description: Camt053Description = {
        version,
        messageId: "MSG",
        statements: [
          {
            id: "S",
            iban: IBAN,
            entries: [
              entry({ amount: "75.00", batch: { paymentInformationId: "DDC-RCUR", count: 2 }, details }),
              entry({
                amount: "120.00",
                accountServicerReference: undefined,
                batch: { paymentInformationId: "DDC-FRST", count: 3 },
              }),
              entry({
                amount: "25.00",
                creditDebit: "debit",
                reversal: true,
                status: "INFO",
                valueDate: "2026-11-21",
                details: [
                  { endToEndId: "INV-2026-000008", creditorName: "Acme", creditorIban: IBAN, returnReason: "MD06" },
                ],
              }),
            ],
          },
        ],
      };
      const transactions = readStatement(bytes(camt053File(description)), 0);
      expect(transactions).toStrictEqual(describedTransactions(description, 0));
      expect(
        transactions.map((t) => [t.entryIndex, t.detailIndex, t.batchPaymentInformationId, t.entryTransactionsCount]),
      ).toStrictEqual([
        [0, 0, "DDC-RCUR", 2],
        [0, 1, "DDC-RCUR", 2],
        [1, 0, "DDC-FRST", 0],
        [2, 0, null, 1],
      ]);
      expect(transactions[0]!.counterpartyName).toBe("Müller & Söhne <GmbH>");
      expect(transactions[3]).toMatchObject({
        reversal: true,
        status: "INFO",
        returnReason: "MD06",
        counterpartyIban: IBAN,
      });
    },
  );
});

describe("camt.053: files from the builder", () => {
  it("reads back every description, in both versions", () => {
    fc.assert(
      fc.property(camt053Descriptions, (described) => {
        const xml = bytes(camt053File(described));
        expect(inspectStatementFile(xml)).toStrictEqual(describedFile(described));
        described.statements.forEach((_, index) =>
          expect(readStatement(xml, index)).toStrictEqual(describedTransactions(described, index)),
        );
      }),
      { numRuns: 300 },
    );
  }, 30_000);
});

// CONTRACT part 15: a file the ISO schema refuses for size or shape is refused at once, the detail naming
// the element: elements nested deeper than 32 levels, a text over its schema length. saxes resolves each
// element's namespace through every element open around it: 15,000 levels took 6.6 s, 200,000 never ended.
describe("camt.053: refused at once for its shape or size", () => {
  /** `xml` with `inside` written into the first entry, before its end. */
  const intoEntry = (xml: string, inside: string) => xml.replace("</Ntry>", `${inside}</Ntry>`);
  const nested = (levels: number) => "<Xtra>".repeat(levels) + "</Xtra>".repeat(levels);

  it.each(VERSIONS.flatMap((version) => [15_000, 200_000].map((levels) => [version, levels] as const)))(
    "%s: %i levels of an unknown element inside an entry, refused in well under a second, by either pass",
    (version, levels) => {
      const xml = bytes(intoEntry(file(version, [entry()]), nested(levels)));
      for (const read of [() => inspectStatementFile(xml), () => readStatement(xml, 0)]) {
        const started = performance.now();
        const { reason, message } = refusal(read);
        expect(performance.now() - started).toBeLessThan(1000);
        expect(reason).toBe("refused");
        // Document, BkToCstmrStmt, Stmt, Ntry: the 29th <Xtra> is the 33rd level.
        expect(message).toMatch(/^the element <Xtra> on line \d+ is nested 33 levels deep: at most 32 are allowed$/);
      }
    },
  );

  it.each(VERSIONS)("%s: 32 levels are read, and what is not the service's is skipped", (version) => {
    const xml = bytes(intoEntry(file(version, [entry()]), nested(28)));
    expect(readStatement(xml, 0)).toStrictEqual(readStatement(bytes(file(version, [entry()])), 0));
  });

  const detail = (fields: Partial<Camt053Detail> = {}) => entry({ details: [{ amount: "12.34", ...fields }] });
  it.each(
    VERSIONS.flatMap(
      (version) =>
        [
          [
            version,
            "Ustrd",
            140,
            (text: string) => file(version, [detail({ unstructured: ["x"] })]).replace(">x<", `>${text}<`),
          ],
          [
            version,
            "AddtlNtryInf",
            500,
            (text: string) => intoEntry(file(version, [entry()]), `<AddtlNtryInf>${text}</AddtlNtryInf>`),
          ],
          [
            version,
            "EndToEndId",
            35,
            (text: string) => file(version, [detail({ endToEndId: "E" })]).replace(">E<", `>${text}<`),
          ],
          [
            version,
            "IBAN",
            34,
            (text: string) =>
              file(version, [detail({ debtorIban: "DE89370400440532013000" })]).replace(
                ">DE89370400440532013000<",
                `>${text}<`,
              ),
          ],
        ] as const,
    ),
  )(
    "%s: <%s> over its schema's %i characters is refused; at the length it is read",
    (_version, element, length, make) => {
      // Characters, not bytes nor UTF-16 units: ä is two bytes, 𝄞 two units.
      const full = "ä".repeat(length - 1) + "𝄞";
      expect(() => readStatement(bytes(make(full)), 0)).not.toThrow();
      for (const read of [inspectStatementFile, (xml: Uint8Array) => readStatement(xml, 0)])
        expect(refusal(() => read(bytes(make(`${full}x`))))).toStrictEqual({
          reason: "refused",
          message: expect.stringMatching(
            new RegExp(
              `^the element <${element}> on line \\d+ holds ${length + 1} characters: its schema allows at most ${length}$`,
            ),
          ),
        });
    },
  );

  it("a 9 MiB Ustrd in a 9.4 MB file is refused at once, not stored in part", () => {
    const xml = file("camt.053.001.08", [detail({ unstructured: ["x"] }), entry(), entry()]).replace(
      ">x<",
      `>${"y".repeat(9 * 1024 * 1024)}<`,
    );
    const started = performance.now();
    expect(refusal(() => inspectStatementFile(bytes(xml)))).toStrictEqual({
      reason: "refused",
      message: expect.stringMatching(
        /^the element <Ustrd> on line \d+ holds 9437184 characters: its schema allows at most 140$/,
      ),
    });
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("a value quoted in a refusal is cut short: the detail stays readable", () => {
    const xml = inEntry(file("camt.053.001.08", [entry()]), ">2026-11-20<", `>${"9".repeat(5000)}<`);
    const { message } = refusal(() => readStatement(bytes(xml), 0));
    expect(message).toBe(
      `entry 1 (AcctSvcrRef 2026112000003): booking date "${"9".repeat(40)}…" is not a calendar date`,
    );
  });
});

// CONTRACT part 15: an entry whose details' amounts do not add up to its own amount, or a detail whose
// direction contradicts its entry's, fails the statement naming the entry.
describe("camt.053: an entry and its details agree", () => {
  const where = "entry 1 (AcctSvcrRef 2026112000003)";
  it.each(VERSIONS)(
    "%s: details adding up to more or less than the entry fail it; to its amount they are read",
    (version) => {
      const of = (...amounts: string[]) =>
        file(version, [entry({ amount: "30.00", details: amounts.map((amount) => ({ amount })) })]);
      expect(readStatement(bytes(of("10.00", "20.00")), 0).map((tx) => tx.amountCents)).toStrictEqual([1000, 2000]);
      for (const [amounts, sum] of [
        [["10.00", "20.01"], "30.01"],
        [["10.00", "19.99"], "29.99"],
        [["31.00"], "31.00"],
      ] as const)
        expect(refusal(() => readStatement(bytes(of(...amounts)), 0))).toStrictEqual({
          reason: "malformed",
          message: `${where}: its details add up to ${sum}, not to its amount 30.00`,
        });
    },
  );

  it("camt.053.001.08: a credit detail inside a debit entry fails it", () => {
    const xml = file("camt.053.001.08", [
      entry({
        creditDebit: "debit",
        amount: "30.00",
        details: [{ amount: "10.00" }, { amount: "20.00", creditDebit: "credit" }],
      }),
    ]);
    expect(refusal(() => readStatement(bytes(xml), 0))).toStrictEqual({
      reason: "malformed",
      message: `${where}, detail 2: a credit inside a debit entry`,
    });
  });
});
