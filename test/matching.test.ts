import { describe, expect, it } from "vitest";
import { referencesOf, share, type NamedInvoice } from "../src/domain/matching";
import { rfReference } from "./support/check-digits.mjs";

// docs/api.md part 15, rule 1 and rule 2: which invoices a transaction names, and how its amount is
// shared among them.

const tx = (fields: Partial<Parameters<typeof referencesOf>[0]>) => ({
  creditorReference: null,
  remittanceInformation: null,
  endToEndId: null,
  ...fields,
});

describe("rule 1: the references a transaction names", () => {
  it.each([
    ["a structured RF reference", tx({ creditorReference: "RF13INV2026000004" }), ["INV-2026-000004"]],
    ["a structured one in printed groups", tx({ creditorReference: "RF13 INV2 0260 0000 4" }), ["INV-2026-000004"]],
    ["a structured one that is not RF names nothing", tx({ creditorReference: "INV-2026-000004" }), []],
    ["a structured RF with wrong check digits names nothing", tx({ creditorReference: "RF14INV2026000004" }), []],
    [
      "a number in the text",
      tx({ remittanceInformation: "Rechnung INV-2026-000005 Kundennr acme" }),
      ["INV-2026-000005"],
    ],
    [
      "numbers as people type them",
      tx({ remittanceInformation: "INV 2026 6 und inv-2026-000007" }),
      ["INV-2026-000006", "INV-2026-000007"],
    ],
    ["leading zeros do not matter", tx({ remittanceInformation: "inv2026-0000006" }), ["INV-2026-000006"]],
    // Issue 39: any number of them.
    [
      "eleven leading zeros more do not matter either",
      tx({ remittanceInformation: "INV-2026-00000000000000006", endToEndId: "INV2026000000000000000007" }),
      ["INV-2026-000006", "INV-2026-000007"],
    ],
    [
      "nor in an RF reference's body",
      tx({ creditorReference: rfReference("INV-2026-00000000000004") }),
      ["INV-2026-000004"],
    ],
    [
      "an RF reference in the text, grouped",
      tx({ remittanceInformation: "Danke RF13 INV2 0260 0000 4 Gruss" }),
      ["INV-2026-000004"],
    ],
    [
      "an RF reference in the text, one run",
      tx({ remittanceInformation: "RF13INV2026000004 Danke" }),
      ["INV-2026-000004"],
    ],
    [
      "an RF reference with wrong check digits names nothing, nor is its body read as a number",
      tx({ remittanceInformation: "RF14INV2026000004" }),
      [],
    ],
    [
      "a wrong RF reference hides only its own body",
      tx({ remittanceInformation: "RF99 foo INV-2026-000004" }),
      ["INV-2026-000004"],
    ],
    [
      "the order found: structured, then the text, then the end-to-end id",
      tx({
        creditorReference: "RF13INV2026000004",
        remittanceInformation: "INV-2026-000009, INV-2026-000005",
        endToEndId: "INV-2026-000007",
      }),
      ["INV-2026-000004", "INV-2026-000009", "INV-2026-000005", "INV-2026-000007"],
    ],
    [
      "repeats count once",
      tx({ creditorReference: "RF13INV2026000004", remittanceInformation: "INV-2026-000004 inv 2026 4" }),
      ["INV-2026-000004"],
    ],
    ["not inside a word", tx({ remittanceInformation: "XINV-2026-000004 SURF13INV2026000004" }), []],
    ["the standard's own example names no invoice", tx({ creditorReference: "RF18539007547034" }), []],
  ] as const)("%s", (_, transaction, expected) => {
    expect(referencesOf(transaction)).toStrictEqual(expected);
  });

  it("every invoice's own payment reference names it (its check digits reckoned independently)", () => {
    for (const number of ["INV-2026-000001", "INV-2027-123456", "INV-2031-1000000"])
      expect(referencesOf(tx({ creditorReference: rfReference(number) }))).toStrictEqual([number]);
  });
});

const invoice = (number: string, open: number, state: NamedInvoice["state"] = "open", customerId = "c1") => ({
  id: number,
  number,
  customerId,
  open,
  state,
});

describe("rule 2: the amount goes to the named open invoices in order", () => {
  it("each up to its open amount; a remainder is a credit of the last named open invoice's customer", () => {
    const a = invoice("A", 1000);
    const b = invoice("B", 500, "open", "c2");
    expect(share(1200, [a, b])).toStrictEqual({
      allocations: [
        { invoice: a, amount: 1000 },
        { invoice: b, amount: 200 },
      ],
      customerId: "c2",
    });
    expect(share(2000, [a, b])).toStrictEqual({
      allocations: [
        { invoice: a, amount: 1000 },
        { invoice: b, amount: 500 },
      ],
      customerId: "c2",
    });
  });

  it("paid and cancelled invoices take nothing; none open: nothing allocated, no customer", () => {
    const paid = invoice("P", 0, "paid");
    const cancelled = invoice("C", 700, "cancelled");
    expect(share(500, [paid, cancelled])).toStrictEqual({ allocations: [], customerId: null });
    const open = invoice("O", 300);
    expect(share(500, [paid, open, cancelled])).toStrictEqual({
      allocations: [{ invoice: open, amount: 300 }],
      customerId: "c1",
    });
  });
});
