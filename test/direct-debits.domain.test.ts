import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  blockOf,
  endToEndIdOf,
  hasExpired,
  type Mandate,
  mandateFor,
  messageIdOf,
  paymentInformationIdOf,
} from "../src/domain/direct-debits";
import { isSepaText, sepaText } from "../src/domain/sepa-text";
import { earliestCollectionDate, isTarget2Day } from "../src/domain/target2";

// CONTRACT part 16, the pure part: the TARGET2 calendar a collection date is checked against and SEPA
// Core's D-1 (src/domain/target2.ts), the SEPA Latin set names are transliterated into
// (src/domain/sepa-text.ts), and the ids, expiry and mandate choice of a collection
// (src/domain/direct-debits.ts). The calendar is held to dates written down here, not computed the way
// the code computes them. The API's side: direct-debit-collections.test.ts.

/** EPC's SEPA Latin set: what a pain.008 may carry. */
const SEPA = /^[A-Za-z0-9/?:().,'+ -]*$/;
/** An id in it: no space, 1 to 35 characters. */
const SEPA_ID = /^[A-Za-z0-9/?:().,'+-]{1,35}$/;

/** Easter Sunday (Gregorian) of years around the service's, as published, and the extremes of the cycle. */
const EASTER: Record<number, string> = {
  1818: "1818-03-22",
  2008: "2008-03-23",
  2011: "2011-04-24",
  2019: "2019-04-21",
  2020: "2020-04-12",
  2021: "2021-04-04",
  2022: "2022-04-17",
  2023: "2023-04-09",
  2024: "2024-03-31",
  2025: "2025-04-20",
  2026: "2026-04-05",
  2027: "2027-03-28",
  2028: "2028-04-16",
  2029: "2029-04-01",
  2030: "2030-04-21",
  2031: "2031-04-13",
  2032: "2032-03-28",
  2033: "2033-04-17",
  2034: "2034-04-09",
  2035: "2035-03-25",
  2038: "2038-04-25",
  2285: "2285-03-22",
};

const plusDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const weekday = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();

/** TARGET2's calendar, written out: closed on weekends and its six holidays, open every other day. */
function referenceOpen(day: string): boolean {
  if (weekday(day) === 0 || weekday(day) === 6) return false;
  const easter = EASTER[Number(day.slice(0, 4))]!;
  const closed = ["01-01", "05-01", "12-25", "12-26"].map((md) => `${day.slice(0, 4)}-${md}`);
  return ![...closed, plusDays(easter, -2), plusDays(easter, 1)].includes(day);
}

describe("the TARGET2 calendar", () => {
  it.each(Object.entries(EASTER))(
    "%s: closed on Good Friday and Easter Monday, open the days around them",
    (_, easter) => {
      expect(isTarget2Day(plusDays(easter, -2)), `Good Friday ${plusDays(easter, -2)}`).toBe(false);
      expect(isTarget2Day(plusDays(easter, 1)), `Easter Monday ${plusDays(easter, 1)}`).toBe(false);
      // Maundy Thursday and Easter Tuesday are business days; Saturday and Easter Sunday are a weekend.
      expect(isTarget2Day(plusDays(easter, -3)), `Maundy Thursday ${plusDays(easter, -3)}`).toBe(true);
      expect(isTarget2Day(plusDays(easter, 2)), `Easter Tuesday ${plusDays(easter, 2)}`).toBe(true);
      expect(isTarget2Day(plusDays(easter, -1))).toBe(false);
      expect(isTarget2Day(easter)).toBe(false);
    },
  );

  it("2027 and 2028: Good Friday 26 March and 14 April, Easter Monday 29 March and 17 April", () => {
    expect(["2027-03-26", "2027-03-29", "2028-04-14", "2028-04-17"].map(isTarget2Day)).toStrictEqual([
      false,
      false,
      false,
      false,
    ]);
    // Good Friday 2026 was 3 April: a day that is closed in one year is open in the next.
    expect(["2027-04-02", "2027-04-06", "2028-03-26", "2028-03-29"].map(isTarget2Day)).toStrictEqual([
      true,
      true,
      false, // a Sunday
      true,
    ]);
  });

  it.each([
    ["2026-01-01", false, "New Year's Day, a Thursday"],
    ["2027-01-01", false, "New Year's Day, a Friday"],
    ["2029-01-01", false, "New Year's Day, a Monday"],
    ["2026-01-02", true, "the day after New Year's Day"],
    ["2026-05-01", false, "1 May, a Friday"],
    ["2028-05-01", false, "1 May, a Monday"],
    ["2025-05-01", false, "1 May, a Thursday"],
    ["2025-12-25", false, "Christmas Day, a Thursday"],
    ["2025-12-26", false, "26 December, a Friday"],
    ["2026-12-25", false, "Christmas Day, a Friday"],
    ["2028-12-25", false, "Christmas Day, a Monday"],
    ["2028-12-26", false, "26 December, a Tuesday"],
    ["2024-12-24", true, "Christmas Eve, a Tuesday: open"],
    ["2026-12-24", true, "Christmas Eve, a Thursday: open"],
    ["2024-12-27", true, "27 December, a Friday: open"],
    ["2027-12-27", true, "27 December 2027, a Monday: open (26 December was a Sunday; nothing moves)"],
    ["2027-12-31", true, "New Year's Eve, a Friday: open"],
    ["2026-05-14", true, "Ascension Day: open (a German holiday, not TARGET2's)"],
    ["2026-05-25", true, "Whit Monday: open"],
    ["2026-10-05", true, "a Monday in October"],
    ["2028-10-03", true, "German Unity Day: open"],
    ["2026-11-27", true, "a Friday"],
    ["2026-11-28", false, "a Saturday"],
    ["2026-11-29", false, "a Sunday"],
    ["2028-02-29", true, "a leap day, a Tuesday"],
  ])("%s: %s (%s)", (day, open) => {
    expect(isTarget2Day(day)).toBe(open);
  });

  it("every day of 2024 to 2035 as written out (weekends, 1 Jan, Good Friday, Easter Monday, 1 May, 25/26 Dec)", () => {
    const wrong: string[] = [];
    let closedWeekdays = 0;
    for (let day = "2024-01-01"; day <= "2035-12-31"; day = plusDays(day, 1)) {
      if (isTarget2Day(day) !== referenceOpen(day)) wrong.push(day);
      if (!referenceOpen(day) && weekday(day) !== 0 && weekday(day) !== 6) closedWeekdays += 1;
    }
    expect(wrong).toStrictEqual([]);
    // Sanity of the reference itself: 2 Easter days a year, plus the fixed ones that fall on a weekday.
    expect(closedWeekdays).toBeGreaterThan(12 * 4);
  });
});

describe("earliestCollectionDate: D-1 counted in TARGET2 days from today, today included when it is one", () => {
  it.each([
    ["a Friday, lead 1: the next Monday", "2026-11-27", 1, "2026-11-30"],
    ["a Saturday, lead 1: the Tuesday", "2026-11-28", 1, "2026-12-01"],
    ["a Sunday, lead 1: the Tuesday", "2026-11-29", 1, "2026-12-01"],
    ["a Monday, lead 1: the Tuesday", "2026-11-30", 1, "2026-12-01"],
    ["a Friday, lead 0: today", "2026-11-27", 0, "2026-11-27"],
    ["a Saturday, lead 0: the Monday", "2026-11-28", 0, "2026-11-30"],
    ["a Friday, lead 2: the Tuesday", "2026-11-27", 2, "2026-12-01"],
    ["a Saturday, lead 2: the Wednesday", "2026-11-28", 2, "2026-12-02"],
    ["a Wednesday, lead 5: a week later", "2026-11-25", 5, "2026-12-02"],
    ["Christmas Eve (Thu), lead 1: past Christmas and the weekend", "2026-12-24", 1, "2026-12-28"],
    ["23 December (Wed), lead 2", "2026-12-23", 2, "2026-12-28"],
    ["23 December (Wed), lead 1: Christmas Eve", "2026-12-23", 1, "2026-12-24"],
    ["Christmas Day (Fri, closed), lead 1", "2026-12-25", 1, "2026-12-29"],
    ["30 April (Thu), lead 1: past 1 May and the weekend", "2026-04-30", 1, "2026-05-04"],
    ["Maundy Thursday 2027, lead 1: past Good Friday, the weekend and Easter Monday", "2027-03-25", 1, "2027-03-30"],
    ["Good Friday 2026 (closed), lead 1: Easter Tuesday counts, the Wednesday", "2026-04-03", 1, "2026-04-08"],
    ["Maundy Thursday 2028, lead 1", "2028-04-13", 1, "2028-04-18"],
    ["New Year's Eve 2027 (Fri), lead 1: 1 January is a Saturday", "2027-12-31", 1, "2028-01-03"],
    ["New Year's Eve 2026 (Thu), lead 1: past New Year's Day and the weekend", "2026-12-31", 1, "2027-01-04"],
  ])("%s", (_, today, lead, earliest) => {
    expect(earliestCollectionDate(today, lead)).toBe(earliest);
  });

  it("is the first TARGET2 day with exactly `lead` TARGET2 days from today before it (2024 to 2034, leads 0 to 10)", () => {
    const days = fc.integer({ min: 0, max: 365 * 10 }).map((n) => plusDays("2024-01-01", n));
    fc.assert(
      fc.property(days, fc.integer({ min: 0, max: 10 }), (today, lead) => {
        const earliest = earliestCollectionDate(today, lead);
        expect(referenceOpen(earliest)).toBe(true);
        let open = 0;
        for (let day = today; day < earliest; day = plusDays(day, 1)) if (referenceOpen(day)) open += 1;
        expect(open).toBe(lead);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("sepaText: names and texts in the SEPA Latin set", () => {
  it.each([
    ["German umlauts and ß spelled out", "Müller & Söhne Gastronomie GmbH", "Mueller + Soehne Gastronomie GmbH"],
    ["capital umlauts", "Ärzte Österreich Übersee", "Aerzte Oesterreich Uebersee"],
    ["ß", "Hauptstraße 5", "Hauptstrasse 5"],
    ["accents taken off", "Café Crème brûlée à Noël", "Cafe Creme brulee a Noel"],
    ["more Latin letters", "Ñandú Çelik Škoda Łódź", "Nandu Celik Skoda Lodz"],
    ["& becomes +", "Schmidt & Co", "Schmidt + Co"],
    ["the allowed punctuation stays", "A/B-C?D:E(F).G,H'I+J", "A/B-C?D:E(F).G,H'I+J"],
    ["other scripts become spaces, runs of spaces one", "Tokyo 東京 Kantine", "Tokyo Kantine"],
    ["Cyrillic, in Latin letters (ISO 9, as banks spell it)", "Москва", "Moskva"],
    ["Greek, in Latin letters (ELOT 743)", "Αθήνα Taverna", "Athina Taverna"],
    ["Cyrillic letters of their own, not Latin ones with marks: й, ѓ, ќ", "Сергей Ѓорѓи Ќосе", "Sergey Gjorgji Kjose"],
    ["Greek ου is ou, in any case", "Παπαδόπουλος ΟΥΡΑΝΟΣ Ουρανία", "Papadopoulos OURANOS Ourania"],
    ["nothing left of a name in a script with no Latin spelling here", "北京", ""],
    ["trimmed", "  Bäckerei  Schmidt  ", "Baeckerei Schmidt"],
    ["tabs and line breaks are spaces", "Kantine\tNord\nGmbH", "Kantine Nord GmbH"],
    [
      "characters XML escapes and SEPA has not",
      'Kantine <Nord> "Süd"',
      expect.stringMatching(/^Kantine Nord 'Sued'$|^Kantine Nord Sued$/),
    ],
  ])("%s: %j", (_, text, expected) => {
    expect(sepaText(text, 70)).toEqual(expected);
  });

  it("cuts to `max` characters after spelling out, and never ends in a space", () => {
    expect(sepaText("a".repeat(80), 70)).toBe("a".repeat(70));
    expect(sepaText("ää", 3)).toBe("aea");
    expect(sepaText("ab cd", 3)).toBe("ab");
    expect(sepaText("ßßßß", 5)).toBe("sssss");
    expect(sepaText(`${"x".repeat(68)} ü`, 70)).toBe(`${"x".repeat(68)} u`);
  });

  it("whatever the text: in the set, at most max, no space at either end, no two in a row", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), fc.integer({ min: 1, max: 140 }), (text, max) => {
        const out = sepaText(text, max);
        expect(out).toMatch(SEPA);
        expect(isSepaText(out)).toBe(true);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(out).toBe(out.trim());
        expect(out).not.toContain("  ");
      }),
      { numRuns: 2_000 },
    );
  });

  it("text already in the set (single spaces, trimmed) is left as it is", () => {
    const word = fc.string({ unit: fc.constantFrom(..."aZ09/-?:().,'+"), minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (words) => {
        const text = words.join(" ");
        expect(isSepaText(text)).toBe(true);
        expect(sepaText(text, 140)).toBe(text);
      }),
    );
  });

  it("isSepaText: the set and nothing else", () => {
    expect(isSepaText("Voucher Cards GmbH")).toBe(true);
    expect(isSepaText("INV-2026-000004-R2")).toBe(true);
    for (const text of ["Müller", "A&B", "a_b", "a@b", "a;b", "€", "a\tb", "a*b"])
      expect(isSepaText(text), text).toBe(false);
  });
});

describe("hasExpired: a mandate with no collection for 36 months", () => {
  it.each([
    ["used 2023-11-27, collected 2026-11-26: 36 months less a day", "2023-11-27", "2026-11-26", false],
    ["used 2023-11-27, collected 2026-11-27: 36 months", "2023-11-27", "2026-11-27", true],
    ["used 2023-11-27, collected 2026-12-01", "2023-11-27", "2026-12-01", true],
    ["used last month", "2026-10-27", "2026-11-30", false],
    ["used on a leap day, collected 28 February three years later", "2024-02-29", "2027-02-28", false],
    ["used on a leap day, collected 1 March three years later", "2024-02-29", "2027-03-01", true],
    ["used 31 January, collected 30 January three years later", "2024-01-31", "2027-01-30", false],
    ["signed (never used) five years ago", "2021-06-01", "2026-11-30", true],
  ])("%s", (_, lastUsedOn, collectionDate, expired) => {
    expect(hasExpired(lastUsedOn, collectionDate)).toBe(expired);
  });
});

describe("mandateFor: the mandate an invoice is debited under", () => {
  const kept: Mandate = { reference: "MNDT-KEPT", signedOn: "2026-01-15", iban: "DE89370400440532013000", bic: null };
  const profile: Mandate = { reference: "MNDT-NEW", signedOn: "2026-06-01", iban: "DE75512108001245126199", bic: null };
  const never = () => undefined;
  const date = "2026-12-14";
  // A candidate as the collection's read gives it: the mandate, and whether a return other than AM04
  // stopped that reference on that account (src/db/direct-debits.ts reads it for any invoice).
  const usable = (mandate: Mandate | null) => ({ mandate, stopped: false });
  const stopped = (mandate: Mandate) => ({ mandate, stopped: true });

  it("the one the invoice kept comes first; the profile's when it kept none", () => {
    expect(mandateFor([usable(kept), usable(profile)], never, date)).toBe(kept);
    expect(mandateFor([usable(null), usable(profile)], never, date)).toBe(profile);
    expect(mandateFor([usable(null), usable(null)], never, date)).toBeUndefined();
  });

  it("a mandate a return other than AM04 stopped on its account is not used again: the profile's other one is, else none", () => {
    expect(mandateFor([stopped(kept), usable(profile)], never, date)).toBe(profile);
    expect(mandateFor([stopped(kept), stopped(kept)], never, date)).toBeUndefined();
    expect(mandateFor([stopped(kept), usable(null)], never, date)).toBeUndefined();
    expect(mandateFor([stopped(kept), stopped(profile)], never, date)).toBeUndefined();
  });

  it("an expired mandate is skipped: counted from its last collection, or from its signature when never used", () => {
    const lastUsed = (dates: Record<string, string>) => (reference: string) => dates[reference];
    // MNDT-KEPT last collected 37 months before: the profile's new mandate.
    expect(mandateFor([usable(kept), usable(profile)], lastUsed({ "MNDT-KEPT": "2023-11-01" }), date)).toBe(profile);
    // The profile still names the expired reference: nothing.
    expect(mandateFor([usable(kept), usable(kept)], lastUsed({ "MNDT-KEPT": "2023-11-01" }), date)).toBeUndefined();
    // Collected 35 months before: still valid.
    expect(mandateFor([usable(kept), usable(profile)], lastUsed({ "MNDT-KEPT": "2024-01-20" }), date)).toBe(kept);
    // Signed four years ago and never used: expired.
    const old = { ...kept, signedOn: "2022-11-01" };
    expect(mandateFor([usable(old), usable(null)], never, date)).toBeUndefined();
    expect(mandateFor([usable(old), usable(profile)], never, date)).toBe(profile);
    // Signed four years ago, last used a year ago: valid.
    expect(mandateFor([usable(old), usable(null)], lastUsed({ "MNDT-KEPT": "2025-11-30" }), date)).toBe(old);
  });
});

describe("the ids a collection writes", () => {
  it("end-to-end id: the invoice number, -R2, -R3, ... on re-collections", () => {
    expect(endToEndIdOf("INV-2026-000004", 0)).toBe("INV-2026-000004");
    expect(endToEndIdOf("INV-2026-000004", 1)).toBe("INV-2026-000004-R2");
    expect(endToEndIdOf("INV-2026-000004", 2)).toBe("INV-2026-000004-R3");
    expect(endToEndIdOf("INV-2026-1000000", 9)).toBe("INV-2026-1000000-R10");
    for (let n = 0; n < 30; n++) expect(endToEndIdOf("INV-2026-123456", n)).toMatch(SEPA_ID);
  });

  it("message id: at most 35 characters of the SEPA set, one per collection; its blocks' ids too", () => {
    fc.assert(
      fc.property(fc.uuid({ version: 4 }), fc.uuid({ version: 4 }), (a, b) => {
        const message = messageIdOf(a);
        expect(message).toMatch(SEPA_ID);
        expect(messageIdOf(a)).toBe(message);
        if (a.replaceAll("-", "").slice(0, 26) !== b.replaceAll("-", "").slice(0, 26))
          expect(messageIdOf(b)).not.toBe(message);
        for (const sequence of ["FRST", "RCUR"] as const) {
          const block = paymentInformationIdOf(message, sequence);
          expect(block).toMatch(SEPA_ID);
          expect(block).not.toBe(message);
          expect(blockOf(block)).toStrictEqual({ messageId: message, sequence });
        }
      }),
      { numRuns: 500 },
    );
    expect(messageIdOf(crypto.randomUUID())).not.toBe(messageIdOf(crypto.randomUUID()));
  });

  it("blockOf names only the blocks of our collections", () => {
    const message = messageIdOf(crypto.randomUUID());
    for (const other of [
      "DDC-2026-11-20-RCUR",
      "DDC-FRST",
      `${message}-OOFF`,
      `${message}-FNAL`,
      `${message}-frst`,
      `${message}FRST`,
      `${message}-FRST-1`,
      `X${message}-FRST`,
      message,
      "",
      "NOTPROVIDED",
    ])
      expect(blockOf(other), other).toBeUndefined();
  });
});
