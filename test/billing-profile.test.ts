import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { INTERFACE_FIELDS } from "./interface-fields";
import {
  addEntry,
  call,
  createCardOrder,
  expectError,
  expectJson,
  ISO_MS,
  newBillingProfile,
  newCardOrder,
  token,
  unique,
} from "./support/api";
import { checkDigits, ibanOf, mod97 } from "./support/check-digits.mjs";

// docs/api.md parts 13 and 14 (the API contract's parts 13 and 14): the customer's billing profile.

const PATH = "/customers/me/billing_profile";
const put = (auth: string, json: unknown) => call(PATH, { token: auth, method: "PUT", json });
const get = (auth: string) => call(PATH, { token: auth });

type Body = Record<string, unknown>;

// The check digits by the tests' own arithmetic (support/check-digits.mjs), independent of src/domain/iban.ts.
/** An IBAN's check: 1 when its check digits are right. */
const ibanMod97 = (iban: string) => mod97(iban.slice(4) + iban.slice(0, 4));
/** The Leitweg-ID of `address` (coarse, or coarse-fine) with its right check digits (KoSIT: MOD 97-10). */
const leitwegOf = (address: string) => `${address}-${checkDigits(address.replaceAll("-", ""))}`;

/** The calendar day of `at` in the business time zone (wrangler.toml: Europe/Berlin), YYYY-MM-DD. */
const berlinDay = (at: Date) =>
  new Intl.DateTimeFormat("en-CA", {
    timeZone: "Europe/Berlin",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(at);

/** The profile as the API shows it, for `customer` after a PUT of `body` (fields in part 14's order). */
const shown = (customer: string, body: Body) => ({
  type: "billing_profile",
  customer,
  legal_name: body.legal_name,
  street: body.street,
  postcode: body.postcode,
  city: body.city,
  country_code: body.country_code,
  vat_id: body.vat_id ?? null,
  buyer_reference: body.buyer_reference ?? null,
  leitweg_id: body.leitweg_id ?? null,
  email: body.email ?? null,
  direct_debit_iban: body.direct_debit_iban ?? null,
  direct_debit_bic: body.direct_debit_bic ?? null,
  direct_debit_mandate_reference: body.direct_debit_mandate_reference ?? null,
  direct_debit_mandate_signed_on: body.direct_debit_mandate_signed_on ?? null,
  document_language: body.document_language ?? "de",
  invoice_format: body.invoice_format ?? null,
  invoice_delivery: body.invoice_delivery ?? "email",
  consumer: body.consumer ?? false,
  updated_at: expect.stringMatching(ISO_MS),
});

/** The customer's row in D1, or null. */
const storedRow = (customer: string) =>
  env.DB.prepare("SELECT * FROM billing_profiles WHERE customer_id = ?").bind(customer).first();
/** The row a shown profile is stored as: the same values under the table's columns, which bear the wire's names (a boolean as SQLite's 0 or 1). */
const rowOf = ({ type: _, customer, consumer, ...fields }: Body) => ({
  customer_id: customer,
  ...fields,
  consumer: consumer ? 1 : 0,
});

/**
 * Stores a profile row straight into D1, the way test/support/api.ts seeds one: here one that the API
 * no longer accepts, as a profile stored before part 14 can be. The row's keys are the table's columns.
 */
async function storeProfile(customer: string, row: Body): Promise<void> {
  const columns = Object.keys(row);
  await env.DB.prepare(
    `INSERT INTO billing_profiles (customer_id, ${columns.join(", ")}, updated_at) ` +
      `VALUES (${["?", ...columns.map(() => "?"), "?"].join(", ")})`,
  )
    .bind(customer, ...Object.values(row), new Date().toISOString())
    .run();
}

/** The six required fields (part 14 made `email` one of them). */
const minimal = {
  legal_name: "Kiosk am Eck",
  street: "Am Markt 1",
  postcode: "01067",
  city: "Dresden",
  country_code: "DE",
  email: "rechnung@kiosk-am-eck.example",
};

/** A direct-debit mandate: the three fields that are all set or all null. */
const mandate = {
  direct_debit_iban: "DE89370400440532013000",
  direct_debit_mandate_reference: "MANDATE-0001",
  direct_debit_mandate_signed_on: "2026-01-15",
};

/** A profile that debits `iban` (with `bic`) under a full mandate: every other field right. */
const debiting = (iban: string, bic: string | null = null): Body => ({
  ...minimal,
  ...mandate,
  direct_debit_iban: iban,
  direct_debit_bic: bic,
});

/** A field refused: its name, or its name and the exact detail. */
type Refusal = string | { field: string; detail: unknown };

/** A PUT of `body` by a new customer answers 422 with exactly these errors, in this order; nothing is stored. */
async function refused(body: Body, ...refusals: [Refusal, ...Refusal[]]) {
  const customer = unique("customer");
  const auth = await token({ customer_id: customer });
  await expectError(
    await put(auth, body),
    422,
    ...refusals.map((refusal) => {
      const { field, detail } = typeof refusal === "string" ? { field: refusal, detail: undefined } : refusal;
      return {
        code: "validation_failed",
        source: { pointer: `/${field}` },
        ...(detail === undefined ? {} : { detail }),
      };
    }),
  );
  await expectError(await get(auth), 404, { code: "not_found" });
  expect(await storedRow(customer)).toBeNull();
}

/** A PUT of `body` by a new customer answers 200 with the profile, which GET then shows and D1 holds. */
async function accepted(body: Body) {
  const customer = unique("customer");
  const auth = await token({ customer_id: customer });
  const { data } = await expectJson(await put(auth, body), 200, { data: shown(customer, body) });
  await expectJson(await get(auth), 200, { data });
  expect(await storedRow(customer)).toStrictEqual(rowOf(data));
  return data;
}

describe("PUT and GET /customers/me/billing_profile", () => {
  it("GET answers 404 before the first PUT; PUT answers 200 with the 17 fields in order, which GET then shows", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    await expectError(await get(auth), 404, { code: "not_found" });

    const { data } = await expectJson(await put(auth, newBillingProfile), 200, {
      data: {
        type: "billing_profile",
        customer,
        legal_name: "Müller & Söhne Gastronomie GmbH",
        street: "Hauptstraße 5",
        postcode: "80331",
        city: "München",
        country_code: "DE",
        vat_id: "DE987654321",
        buyer_reference: "Kantine Nord",
        leitweg_id: "04011000-12345-03",
        email: "rechnung@mueller-soehne.example",
        direct_debit_iban: "DE89370400440532013000",
        direct_debit_bic: null,
        direct_debit_mandate_reference: "MANDATE-0001",
        direct_debit_mandate_signed_on: "2026-01-15",
        document_language: "de",
        invoice_format: null,
        invoice_delivery: "email",
        consumer: false,
        updated_at: expect.stringMatching(ISO_MS),
      },
    });
    expect(Object.keys(data)).toStrictEqual([...INTERFACE_FIELDS.billing_profile]);
    await expectJson(await get(auth), 200, { data });
    expect(await storedRow(customer)).toStrictEqual(rowOf(data));
  });

  it("shows every field it was given: a Swiss buyer in English, debited with a BIC", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const body = {
      legal_name: "Bergbahn AG",
      street: "Bahnhofstrasse 1",
      postcode: "8001",
      city: "Zürich",
      country_code: "CH",
      vat_id: null,
      buyer_reference: "PO-77",
      leitweg_id: "991-33333TEST-33",
      email: "invoices@bergbahn.example",
      direct_debit_iban: "CH9300762011623852957",
      direct_debit_bic: "UBSWCHZH80A",
      direct_debit_mandate_reference: "CH/2026-03:(1)",
      direct_debit_mandate_signed_on: "2026-03-01",
      document_language: "en",
    };
    const { data } = await expectJson(await put(auth, body), 200, {
      data: {
        type: "billing_profile",
        customer,
        legal_name: "Bergbahn AG",
        street: "Bahnhofstrasse 1",
        postcode: "8001",
        city: "Zürich",
        country_code: "CH",
        vat_id: null,
        buyer_reference: "PO-77",
        leitweg_id: "991-33333TEST-33",
        email: "invoices@bergbahn.example",
        direct_debit_iban: "CH9300762011623852957",
        direct_debit_bic: "UBSWCHZH80A",
        direct_debit_mandate_reference: "CH/2026-03:(1)",
        direct_debit_mandate_signed_on: "2026-03-01",
        document_language: "en",
        invoice_format: null,
        invoice_delivery: "email",
        consumer: false,
        updated_at: expect.stringMatching(ISO_MS),
      },
    });
    await expectJson(await get(auth), 200, { data });
    expect(await storedRow(customer)).toStrictEqual(rowOf(data));
  });

  it("replaces the profile whole: a field left out is null (document_language: de); the six required ones are all it needs", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const full = { ...newBillingProfile, direct_debit_bic: "COBADEFFXXX", document_language: "en" };
    await expectJson(await put(auth, full), 200, { data: shown(customer, full) });
    await expectJson(await put(auth, minimal), 200, { data: shown(customer, minimal) });
    const nulls = {
      vat_id: null,
      buyer_reference: null,
      leitweg_id: null,
      direct_debit_iban: null,
      direct_debit_bic: null,
      direct_debit_mandate_reference: null,
      direct_debit_mandate_signed_on: null,
    };
    await expectJson(await put(auth, full), 200, { data: shown(customer, full) });
    const { data } = await expectJson(await put(auth, { ...minimal, ...nulls }), 200, {
      data: shown(customer, minimal),
    });
    await expectJson(await get(auth), 200, { data });
    expect(await storedRow(customer)).toStrictEqual(rowOf(data));
  });

  it('document_language is "de" when omitted, "de" or "en" when given, anything else 422 at /document_language', async () => {
    expect((await accepted(minimal)).document_language).toBe("de");
    expect((await accepted({ ...minimal, document_language: "de" })).document_language).toBe("de");
    expect((await accepted({ ...minimal, document_language: "en" })).document_language).toBe("en");
    for (const language of ["EN", "De", "fr", "de-DE", "en-GB", "", null, 1, ["de"]])
      await refused({ ...minimal, document_language: language }, "document_language");
  });

  it("emits billing_profile.updated with the profile as data, in the PUT's batch", async () => {
    const auth = await token();
    const { data } = await expectJson(await put(auth, minimal), 200, expect.anything());
    const events = await expectJson(
      await call("/events?type=billing_profile.updated", { token: auth }),
      200,
      expect.anything(),
    );
    expect(events.data).toStrictEqual([
      { id: expect.any(String), type: "billing_profile.updated", created_at: expect.stringMatching(ISO_MS), data },
    ]);
  });

  it("is the customer's own: another customer sees 404, and its PUT changes only its own", async () => {
    const [mine, theirs] = [await token(), await token()];
    const { data } = await expectJson(await put(mine, newBillingProfile), 200, expect.anything());
    await expectError(await get(theirs), 404, { code: "not_found" });
    await expectJson(await put(theirs, minimal), 200, expect.anything());
    await expectJson(await get(mine), 200, { data });
  });

  it("needs invoices:write to PUT and invoices:read to GET, and a customer_id", async () => {
    const forbidden = { code: "forbidden", source: { header: "Authorization" } };
    await expectError(await put(await token({ scope: "invoices:read" }), minimal), 403, forbidden);
    await expectError(await get(await token({ scope: "invoices:write" })), 403, forbidden);
    await expectError(await put(await token({ customer_id: undefined }), minimal), 403, forbidden);
    await expectError(await get(await token({ customer_id: undefined })), 403, forbidden);
  });
});

describe("PUT /customers/me/billing_profile: every rule of a field (422 validation_failed at the field)", () => {
  it.each(["legal_name", "street", "postcode", "city", "country_code", "email"])(
    "%s is required and not empty",
    async (field) => {
      const { [field as keyof typeof minimal]: _, ...without } = minimal;
      await refused(without, { field, detail: `${field} is required.` });
      await refused({ ...minimal, [field]: "" }, field);
      await refused({ ...minimal, [field]: null }, field);
      await refused({ ...minimal, [field]: 5 }, field);
    },
  );

  it("email is required since part 14 (it was optional before): omitted or null is 422 at /email", async () => {
    const { email: _, ...withoutEmail } = newBillingProfile;
    await refused(withoutEmail, { field: "email", detail: "email is required." });
    await refused({ ...newBillingProfile, email: null }, "email");
  });

  it.each([
    ["legal_name", 200],
    ["street", 200],
    ["postcode", 16],
    ["city", 100],
    ["buyer_reference", 200],
  ])("%s holds at most %i characters (counted as characters: ß and emoji are one each)", async (field, max) => {
    await accepted({ ...minimal, [field]: "ß".repeat(max - 1) + "😀" });
    await refused({ ...minimal, [field]: "x".repeat(max + 1) }, field);
  });

  // Every field but document_language (an enum) in a profile that is right but for it: no vat_id, so
  // that a bad country_code is the only fault.
  const everyField = {
    ...minimal,
    buyer_reference: "Kantine Nord",
    leitweg_id: "04011000-12345-03",
    ...mandate,
    direct_debit_bic: "COBADEFFXXX",
  };
  it.each([
    "legal_name",
    "street",
    "postcode",
    "city",
    "country_code",
    "vat_id",
    "buyer_reference",
    "leitweg_id",
    "email",
    "direct_debit_iban",
    "direct_debit_bic",
    "direct_debit_mandate_reference",
    "direct_debit_mandate_signed_on",
  ])(
    "%s takes no control, format or XML-illegal character, no lone surrogate, and no space at either end",
    async (field) => {
      await accepted(everyField);
      for (const bad of [
        "A\u0000B",
        "A\u0008B",
        "A\u000bB",
        "A\u000cB",
        "A\u001fB",
        "A\tB",
        "A\nB",
        "A\rB",
        "A\u007fB",
        "A\u0085B",
        "A\u200bB",
        "A\u202eB",
        "A\ufeffB",
        "A\u2028B",
        "A\ufffeB",
        "A\uffffB",
        "A\ud800B",
        "A\udc00B",
        " AB",
        "AB ",
      ])
        await refused({ ...everyField, [field]: bad }, field);
    },
  );

  it("country_code is an assigned ISO 3166-1 alpha-2 code in upper case", async () => {
    for (const [code, vat_id] of [
      ["AT", "ATU12345678"],
      ["GR", "EL123456789"],
      ["CH", null],
      ["US", null],
      ["ZW", null],
      ["AD", null],
    ])
      await accepted({ ...minimal, country_code: code, vat_id });
    for (const code of ["de", "De", "XX", "UK", "EU", "D", "DEU", "AA", "ZZ"])
      await refused({ ...minimal, country_code: code }, "country_code");
  });

  it("vat_id matches ^[A-Z]{2}[0-9A-Z+*.]{2,13}$ and begins with the country code, EL for Greece", async () => {
    await accepted({ ...minimal, vat_id: "DE123456789" });
    await accepted({ ...minimal, country_code: "AT", vat_id: "ATU12345678" });
    await accepted({ ...minimal, country_code: "GR", vat_id: "EL123456789" });
    await accepted({ ...minimal, country_code: "NL", vat_id: "NL123456789B01" });
    await accepted({ ...minimal, country_code: "CH", vat_id: "CHE123456789" });
    await refused({ ...minimal, country_code: "GR", vat_id: "GR123456789" }, "vat_id");
    await refused({ ...minimal, vat_id: "AT123456789" }, "vat_id");
    await refused({ ...minimal, vat_id: "EL123456789" }, "vat_id");
    await refused({ ...minimal, vat_id: "de123456789" }, "vat_id");
    await refused({ ...minimal, vat_id: "DE1" }, "vat_id");
    await refused({ ...minimal, vat_id: "DE12345678901234" }, "vat_id");
    await refused({ ...minimal, vat_id: "DE 123456789" }, "vat_id");
    await refused({ ...minimal, vat_id: "DE123-456" }, "vat_id");
    await refused({ ...minimal, vat_id: "" }, "vat_id");
  });

  it("vat_id is required for a buyer in an EU member state other than Germany, and only there", async () => {
    for (const country of ["FR", "AT", "GR", "NL", "IE", "PL"]) {
      await refused({ ...minimal, country_code: country }, "vat_id");
      await refused({ ...minimal, country_code: country, vat_id: null }, "vat_id");
    }
    await accepted({ ...minimal, country_code: "FR", vat_id: "FR12345678901" });
    await accepted({ ...minimal, country_code: "AT", vat_id: "ATU12345678" });
    await accepted({ ...minimal, country_code: "GR", vat_id: "EL123456789" });
    // Germany, and countries outside the EU (Norway is in the EEA, not the EU).
    for (const country of ["DE", "CH", "GB", "US", "NO"]) {
      await accepted({ ...minimal, country_code: country });
      await accepted({ ...minimal, country_code: country, vat_id: null });
    }
  });

  it("email has one @, no whitespace, at most 254 characters", async () => {
    await accepted({ ...minimal, email: "a@b" });
    await accepted({ ...minimal, email: `${"a".repeat(242)}@example.com` });
    for (const email of ["ab", "a@b@c", "@b", "a@", "a b@c", "a@b\tc", `${"a".repeat(243)}@example.com`])
      await refused({ ...minimal, email }, "email");
  });

  it("leitweg_id is null, or a Leitweg-ID (upper case) with right ISO 7064 MOD 97-10 check digits", async () => {
    await accepted(minimal);
    await accepted({ ...minimal, leitweg_id: null });
    for (const leitweg_id of [
      "04011000-12345-03",
      "991-33333TEST-33",
      leitwegOf("04"),
      leitwegOf("991-X"),
      // The longest: 12 digits of coarse address, 30 characters of fine address (46 in all).
      leitwegOf(`${"9".repeat(12)}-${"Z9".repeat(15)}`),
    ])
      expect((await accepted({ ...minimal, leitweg_id })).leitweg_id).toBe(leitweg_id);
    for (const leitweg_id of [
      "04011000-12345-34", // the README's old example: wrong check digits
      "991-33333TEST-34",
      "04011000-12345-00",
      "991-33333test-33", // lower case, though its digits are right read case-blind
      "04011000-12345", // no check digits
      "991-33333TEST",
      "04011000-12345-3",
      "04011000-12345-003",
      "04011000 12345 03",
      "04011000-12345-03 ",
      "04011000--03",
      "04011000-12_345-" + leitwegOf("04011000-12345").slice(-2),
      leitwegOf("4"), // a coarse address of one digit
      leitwegOf(`${"9".repeat(13)}-12345`), // of 13 digits
      leitwegOf(`04011000-${"A".repeat(31)}`), // a fine address of 31 characters
      leitwegOf("04011000-12345-1"), // two fine addresses
      leitwegOf("AB011000-12345"), // letters in the coarse address
      "",
    ])
      await refused({ ...minimal, leitweg_id }, "leitweg_id");
  });

  it("direct_debit_mandate_reference uses only A-Z a-z 0-9 / - ? : ( ) . , ' + (no space), 1..35", async () => {
    for (const reference of ["MANDATE-0001", "1", "Aa0/-?:().,'+", "x".repeat(35)])
      expect(
        (await accepted({ ...minimal, ...mandate, direct_debit_mandate_reference: reference }))
          .direct_debit_mandate_reference,
      ).toBe(reference);
    for (const reference of [
      "MANDAT 1",
      "Mandat-Ä",
      "x".repeat(36),
      "",
      "M_1",
      "M&1",
      "M#1",
      "M–1",
      "Mandatß",
      "M\u00a01",
    ])
      await refused(
        { ...minimal, ...mandate, direct_debit_mandate_reference: reference },
        "direct_debit_mandate_reference",
      );
  });

  it("direct_debit_mandate_signed_on is a real date YYYY-MM-DD, today (Europe/Berlin) or before", async () => {
    const today = berlinDay(new Date());
    for (const day of ["2026-01-15", "2024-02-29", "2009-11-02", today])
      expect(
        (await accepted({ ...minimal, ...mandate, direct_debit_mandate_signed_on: day }))
          .direct_debit_mandate_signed_on,
      ).toBe(day);
    const yearAhead = berlinDay(new Date(Date.now() + 366 * 86_400_000));
    for (const day of [
      "2026-02-30",
      "2025-02-29",
      "2026-13-01",
      "2026-00-10",
      "2026-1-15",
      "15.01.2026",
      "20260115",
      "2026-01-15T00:00:00Z",
      yearAhead,
      "2999-01-01",
    ])
      await refused({ ...minimal, ...mandate, direct_debit_mandate_signed_on: day }, "direct_debit_mandate_signed_on");
  });

  it.each([
    [["direct_debit_iban"], ["direct_debit_mandate_reference", "direct_debit_mandate_signed_on"]],
    [["direct_debit_mandate_reference"], ["direct_debit_iban", "direct_debit_mandate_signed_on"]],
    [["direct_debit_mandate_signed_on"], ["direct_debit_iban", "direct_debit_mandate_reference"]],
    [["direct_debit_iban", "direct_debit_mandate_reference"], ["direct_debit_mandate_signed_on"]],
    [["direct_debit_iban", "direct_debit_mandate_signed_on"], ["direct_debit_mandate_reference"]],
    [["direct_debit_mandate_reference", "direct_debit_mandate_signed_on"], ["direct_debit_iban"]],
  ] as const)(
    "the mandate is all set or all null: %j alone answers one error for each of %j",
    async (given, missing) => {
      const partial = Object.fromEntries(given.map((field) => [field, mandate[field]]));
      const [first, ...rest] = missing;
      // Left out, and given as null: the same errors, in the schema's order.
      await refused({ ...minimal, ...partial }, first, ...rest);
      await refused(
        { ...minimal, ...partial, ...Object.fromEntries(missing.map((field) => [field, null])) },
        first,
        ...rest,
      );
    },
  );

  it("the mandate's three fields all null, or all left out, is no mandate", async () => {
    await accepted(minimal);
    const none = await accepted({
      ...minimal,
      direct_debit_iban: null,
      direct_debit_mandate_reference: null,
      direct_debit_mandate_signed_on: null,
    });
    expect([
      none.direct_debit_iban,
      none.direct_debit_mandate_reference,
      none.direct_debit_mandate_signed_on,
    ]).toStrictEqual([null, null, null]);
    await accepted({ ...minimal, ...mandate });
  });

  it("direct_debit_iban: an IBAN in electronic form of a registered country, of its length, with valid check digits", async () => {
    for (const [iban, bic] of [
      ["DE89370400440532013000", null],
      ["AT611904300234573201", null], // 20
      ["FR1420041010050500013M02606", null], // 27
      ["NO9386011117947", null], // 15
      ["LI21088100002324013AA", null], // 21, EEA
      ["CH9300762011623852957", "UBSWCHZH80A"], // 21
      ["GB29NWBK60161331926819", "NWBKGB2L"], // 22
    ] as const) {
      expect(ibanMod97(iban)).toBe(1);
      expect((await accepted(debiting(iban, bic))).direct_debit_iban).toBe(iban);
    }
    for (const iban of [
      "DE89370400440532013001",
      "DE89 3704 0044 0532 0130 00",
      "de89370400440532013000",
      "DE8937",
      "1234567890123456",
      "",
    ])
      await refused(debiting(iban), "direct_debit_iban");
  });

  it.each([
    [97, "00"],
    [98, "01"],
    [2, "99"],
  ])(
    "direct_debit_iban: check digits %i are right, %s refused though mod 97 holds for them too",
    async (right, refusedDigits) => {
      // A German account whose right check digits are `right`: mod 97 is blind to ±97 in them.
      let bban = "";
      for (let account = 0; !bban; account++) {
        const candidate = `37040044${String(account).padStart(10, "0")}`;
        if (98 - mod97(`${candidate}DE00`) === right) bban = candidate;
      }
      const good = `DE${String(right).padStart(2, "0")}${bban}`;
      const bad = `DE${refusedDigits}${bban}`;
      expect([ibanMod97(good), ibanMod97(bad), bad.length]).toStrictEqual([1, 1, 22]);
      await accepted(debiting(good));
      await refused(debiting(bad), "direct_debit_iban");
    },
  );

  it("direct_debit_iban: a country the IBAN registry does not know, or another length than its own, is refused", async () => {
    for (const iban of [
      ibanOf("XX", "370400440532013000"),
      ibanOf("US", "370400440532013000"),
      ibanOf("QQ", "0532013000"),
      ibanOf("DE", "3704004405320130001"), // 23 characters, DE has 22
      ibanOf("DE", "37040044053201300"), // 21
      ibanOf("NO", "860111179470"), // 16, NO has 15
      ibanOf("NO", "8601111794"), // 14
      ibanOf("AT", "193043002345732011"), // 22, AT has 20
    ]) {
      expect(ibanMod97(iban)).toBe(1);
      await refused(debiting(iban), "direct_debit_iban");
    }
  });

  it("direct_debit_iban: an account outside SEPA cannot be debited by SEPA direct debit", async () => {
    for (const iban of ["TR330006100519786457841326", "BR1800360305000010009795493C1", "SA0380000000608010167519"]) {
      expect(ibanMod97(iban)).toBe(1);
      await refused(debiting(iban), "direct_debit_iban");
      await refused(debiting(iban, "DEUTDEFF"), "direct_debit_iban");
    }
  });

  it("direct_debit_bic is null or a BIC of 8 or 11 characters", async () => {
    await accepted(debiting("DE89370400440532013000", null));
    for (const bic of ["DEUTDEFF", "DEUTDEFF500", "COBADEFFXXX"])
      expect((await accepted(debiting("DE89370400440532013000", bic))).direct_debit_bic).toBe(bic);
    for (const bic of ["DEUTDEF", "DEUTDEFF5", "DEUTDEFF50", "DEUTDEFF5000", "deutdeff", "DEU1DEFF", "DEUT DEFF", ""])
      await refused(debiting("DE89370400440532013000", bic), "direct_debit_bic");
  });

  it.each([
    ["CH9300762011623852957", "UBSWCHZH80A"],
    ["GB29NWBK60161331926819", "NWBKGB2L"],
    ["MC5811222000010123456789030", "SOGEMCM1"],
    ["SM86U0322509800000000270100", "BSMASMSM"],
    ["AD1200012030200359100100", "BACAADAD"],
    ["VA59001123000012345678", "IOPRVAVX"],
  ])("direct_debit_bic is required for %s, an account in a SEPA country outside the EEA", async (iban, bic) => {
    expect(ibanMod97(iban)).toBe(1);
    await refused(debiting(iban), "direct_debit_bic");
    const data = await accepted(debiting(iban, bic));
    expect([data.direct_debit_iban, data.direct_debit_bic]).toStrictEqual([iban, bic]);
  });

  it("direct_debit_bic is not required for an account in the EEA, and not given without an IBAN", async () => {
    for (const iban of ["DE89370400440532013000", "AT611904300234573201", "NO9386011117947"])
      expect((await accepted(debiting(iban))).direct_debit_bic).toBeNull();
    await refused({ ...minimal, direct_debit_bic: "DEUTDEFF" }, "direct_debit_bic");
    await refused(
      {
        ...minimal,
        direct_debit_iban: null,
        direct_debit_bic: "DEUTDEFF",
        direct_debit_mandate_reference: null,
        direct_debit_mandate_signed_on: null,
      },
      "direct_debit_bic",
    );
  });

  describe("reports every offending field of a body, the rules between fields beside the others (part 3)", () => {
    const { email: _, ...withoutEmail } = minimal;
    /** The pointers of a 422's errors, sorted: which fields it names, whatever their order. */
    const pointers = async (body: Body) => {
      const auth = await token();
      const response = await put(auth, body);
      expect(response.status).toBe(422);
      const { errors } = (await response.json()) as { errors: { code: string; source: { pointer: string } }[] };
      expect(errors.every(({ code }) => code === "validation_failed")).toBe(true);
      return errors.map(({ source }) => source.pointer).sort();
    };

    it("a misspelt e-mail beside a French address without vat_id: both", async () => {
      expect(await pointers({ ...minimal, email: "no-at-sign", country_code: "FR" })).toStrictEqual([
        "/email",
        "/vat_id",
      ]);
    });

    it("a missing e-mail beside a French address without vat_id: both", async () => {
      expect(await pointers({ ...withoutEmail, country_code: "FR" })).toStrictEqual(["/email", "/vat_id"]);
    });

    it("a missing e-mail beside a partial mandate: the e-mail and each missing field of the mandate", async () => {
      expect(await pointers({ ...withoutEmail, direct_debit_iban: mandate.direct_debit_iban })).toStrictEqual([
        "/direct_debit_mandate_reference",
        "/direct_debit_mandate_signed_on",
        "/email",
      ]);
    });

    it("an empty city beside a signing date in the future: both", async () => {
      const yearAhead = berlinDay(new Date(Date.now() + 366 * 86_400_000));
      expect(
        await pointers({ ...minimal, ...mandate, city: "", direct_debit_mandate_signed_on: yearAhead }),
      ).toStrictEqual(["/city", "/direct_debit_mandate_signed_on"]);
    });
  });

  it("refuses an unknown field, and a body that is not a JSON object", async () => {
    await refused({ ...minimal, legalName: "x" }, { field: "legalName", detail: '"legalName" is not a known field.' });
    const auth = await token();
    await expectError(
      await call(PATH, { token: auth, method: "PUT", body: "[]", headers: { "Content-Type": "application/json" } }),
      400,
      { code: "invalid_json" },
    );
  });
});

describe("submit needs a billing profile that makes a valid e-invoice (parts 13 and 14)", () => {
  async function draftWithEntry(auth: string, body: object = newCardOrder) {
    const order = await createCardOrder(auth, body, { profile: false });
    await addEntry(auth, order.id);
    return order;
  }
  const submit = (auth: string, id: string) => call(`/card_orders/${id}/submit`, { token: auth, method: "POST" });
  const orderRow = (id: string) => env.DB.prepare("SELECT * FROM card_orders WHERE id = ?").bind(id).first();
  const eventsOf = async (auth: string) =>
    (await expectJson(await call("/events", { token: auth }), 200, expect.anything())).data;
  const directDebit = { ...newCardOrder, payment_method: "direct_debit" };

  /** Submit answers 409 conflict and changes nothing: the order's row and the customer's events stay as they were. */
  async function refusedSubmit(auth: string, orderId: string, detail: unknown): Promise<string> {
    const [row, events] = [await orderRow(orderId), await eventsOf(auth)];
    expect(row?.state).toBe("draft");
    const { errors } = await expectError(await submit(auth, orderId), 409, { code: "conflict", detail });
    expect(await orderRow(orderId)).toStrictEqual(row);
    expect(await eventsOf(auth)).toStrictEqual(events);
    return errors[0].detail;
  }

  /** A profile as one stored before part 14 is: no leitweg_id, BIC, signing date; document_language the default. */
  const beforePart14 = {
    legal_name: "Kiosk am Eck",
    street: "Am Markt 1",
    postcode: "01067",
    city: "Dresden",
    country_code: "DE",
    vat_id: null,
    buyer_reference: null,
    email: null,
    direct_debit_iban: null,
    direct_debit_mandate_reference: null,
  };

  it("without a profile: 409 conflict saying to PUT it first; the order stays a draft", async () => {
    const auth = await token();
    const order = await draftWithEntry(auth);
    await refusedSubmit(auth, order.id, expect.stringContaining("PUT /customers/me/billing_profile"));
    await expectJson(await put(auth, minimal), 200, expect.anything());
    expect((await submit(auth, order.id)).status).toBe(200);
    expect((await orderRow(order.id))?.state).toBe("submitted");
  });

  it("the entries check comes first: an empty draft without a profile answers 409 invalid_state", async () => {
    const auth = await token();
    const order = await createCardOrder(auth, newCardOrder, { profile: false });
    await expectError(await submit(auth, order.id), 409, { code: "invalid_state" });
    expect((await orderRow(order.id))?.state).toBe("draft");
  });

  it("a profile stored before part 14 without email: 409 conflict naming the e-mail, until a PUT adds it", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    await storeProfile(customer, beforePart14);
    // The API shows the stored profile as it is: email null.
    await expectJson(await get(auth), 200, { data: shown(customer, beforePart14) });
    const order = await draftWithEntry(auth);
    const detail = await refusedSubmit(auth, order.id, expect.stringContaining("email"));
    expect(detail).toContain("PUT /customers/me/billing_profile");
    // Still refused on a second try: nothing about the profile changed.
    await refusedSubmit(auth, order.id, detail);

    await expectJson(await put(auth, { ...beforePart14, email: "rechnung@kiosk-am-eck.example" }), 200, {
      data: shown(customer, { ...beforePart14, email: "rechnung@kiosk-am-eck.example" }),
    });
    const submitted = await expectJson(await submit(auth, order.id), 200, expect.anything());
    expect(submitted.data.state).toBe("submitted");
  });

  it("a direct_debit order whose profile has no mandate: 409 conflict naming the IBAN, mandate reference and date", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    await storeProfile(customer, { ...beforePart14, email: "rechnung@kiosk-am-eck.example" });
    const order = await draftWithEntry(auth, directDebit);
    const detail = await refusedSubmit(auth, order.id, expect.stringContaining("direct_debit_iban"));
    expect(detail).toContain("direct_debit_mandate_reference");
    expect(detail).toContain("direct_debit_mandate_signed_on");

    // A bank transfer needs no mandate.
    const transfer = await draftWithEntry(auth);
    expect((await submit(auth, transfer.id)).status).toBe(200);

    await expectJson(await put(auth, { ...minimal, ...mandate }), 200, expect.anything());
    const submitted = await expectJson(await submit(auth, order.id), 200, expect.anything());
    expect(submitted.data.state).toBe("submitted");
  });

  it("a direct_debit order whose profile (stored before part 14) has IBAN and reference but no signing date: 409 naming only the date", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    await storeProfile(customer, {
      ...beforePart14,
      email: "rechnung@kiosk-am-eck.example",
      direct_debit_iban: mandate.direct_debit_iban,
      direct_debit_mandate_reference: mandate.direct_debit_mandate_reference,
    });
    const order = await draftWithEntry(auth, directDebit);
    const detail = await refusedSubmit(auth, order.id, expect.stringContaining("direct_debit_mandate_signed_on"));
    expect(detail).not.toContain("direct_debit_iban");
    expect(detail).not.toContain("direct_debit_mandate_reference");

    await expectJson(await put(auth, { ...minimal, ...mandate }), 200, expect.anything());
    expect((await submit(auth, order.id)).status).toBe(200);
  });

  it("a profile without email comes before a missing mandate: a direct_debit order is refused for the e-mail first", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    await storeProfile(customer, beforePart14);
    const order = await draftWithEntry(auth, directDebit);
    const detail = await refusedSubmit(auth, order.id, expect.stringContaining("email"));
    expect(detail).not.toContain("direct_debit_iban");
  });
});

describe("PUT /customers/me/billing_profile changing nothing, or refused", () => {
  it("writes nothing and emits no event: it answers the profile as it is, updated_at unchanged", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const first = await expectJson(await put(auth, newBillingProfile), 200, expect.anything());
    const row = await storedRow(customer);
    await expectJson(await put(auth, newBillingProfile), 200, first);
    expect(await storedRow(customer)).toStrictEqual(row);
    const events = await expectJson(await call("/events", { token: auth }), 200, expect.anything());
    expect(events.data.map((event: { type: string }) => event.type)).toStrictEqual(["billing_profile.updated"]);
    const changed = await expectJson(
      await put(auth, { ...newBillingProfile, city: "Augsburg" }),
      200,
      expect.anything(),
    );
    expect(changed.data.updated_at > first.data.updated_at).toBe(true);
  });

  it("a refused PUT leaves the stored profile and the events as they were", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const { data } = await expectJson(await put(auth, newBillingProfile), 200, expect.anything());
    const row = await storedRow(customer);
    const { email: _, ...withoutEmail } = newBillingProfile;
    for (const [body, field] of [
      [withoutEmail, "email"],
      [{ ...newBillingProfile, direct_debit_mandate_signed_on: null }, "direct_debit_mandate_signed_on"],
      [{ ...newBillingProfile, country_code: "FR", vat_id: null }, "vat_id"],
      [{ ...newBillingProfile, direct_debit_iban: "CH9300762011623852957" }, "direct_debit_bic"],
      [{ ...newBillingProfile, leitweg_id: "04011000-12345-34" }, "leitweg_id"],
    ] as const)
      await expectError(await put(auth, body), 422, { code: "validation_failed", source: { pointer: `/${field}` } });
    await expectJson(await get(auth), 200, { data });
    expect(await storedRow(customer)).toStrictEqual(row);
    const events = await expectJson(await call("/events", { token: auth }), 200, expect.anything());
    expect(events.data.map((event: { type: string }) => event.type)).toStrictEqual(["billing_profile.updated"]);
  });
});
