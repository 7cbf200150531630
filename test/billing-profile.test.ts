import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
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

const PATH = "/customers/me/billing_profile";
const put = (auth: string, json: unknown) => call(PATH, { token: auth, method: "PUT", json });

/** The profile as the API shows it, for `customer` after a PUT of `body` (fields in docs/api.md part 13's order). */
const shown = (customer: string, body: Record<string, unknown>) => ({
  type: "billing_profile",
  customer,
  legal_name: body.legal_name,
  street: body.street,
  postcode: body.postcode,
  city: body.city,
  country_code: body.country_code,
  vat_id: body.vat_id ?? null,
  buyer_reference: body.buyer_reference ?? null,
  email: body.email ?? null,
  direct_debit_iban: body.direct_debit_iban ?? null,
  direct_debit_mandate_reference: body.direct_debit_mandate_reference ?? null,
  updated_at: expect.stringMatching(ISO_MS),
});

const minimal = {
  legal_name: "Kiosk am Eck",
  street: "Am Markt 1",
  postcode: "01067",
  city: "Dresden",
  country_code: "DE",
};

describe("PUT and GET /customers/me/billing_profile", () => {
  it("GET answers 404 before the first PUT; PUT answers 200 with the profile, which GET then shows", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    await expectError(await call(PATH, { token: auth }), 404, { code: "not_found" });

    const { data } = await expectJson(await put(auth, newBillingProfile), 200, {
      data: shown(customer, newBillingProfile),
    });
    await expectJson(await call(PATH, { token: auth }), 200, { data });
  });

  it("replaces the profile whole: a field left out is null; the five required ones are all it needs", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    await expectJson(await put(auth, newBillingProfile), 200, { data: shown(customer, newBillingProfile) });
    await expectJson(await put(auth, minimal), 200, { data: shown(customer, minimal) });
    await expectJson(await put(auth, { ...minimal, vat_id: null, email: null }), 200, {
      data: shown(customer, minimal),
    });
    await expectJson(await call(PATH, { token: auth }), 200, { data: shown(customer, minimal) });
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
    expect((await put(mine, newBillingProfile)).status).toBe(200);
    await expectError(await call(PATH, { token: theirs }), 404, { code: "not_found" });
    expect((await put(theirs, minimal)).status).toBe(200);
    const { data } = await expectJson(await call(PATH, { token: mine }), 200, expect.anything());
    expect(data.legal_name).toBe(newBillingProfile.legal_name);
  });

  it("needs invoices:write to PUT and invoices:read to GET, and a customer_id", async () => {
    const forbidden = { code: "forbidden", source: { header: "Authorization" } };
    await expectError(await put(await token({ scope: "invoices:read" }), minimal), 403, forbidden);
    await expectError(await call(PATH, { token: await token({ scope: "invoices:write" }) }), 403, forbidden);
    await expectError(await put(await token({ customer_id: undefined }), minimal), 403, forbidden);
    await expectError(await call(PATH, { token: await token({ customer_id: undefined }) }), 403, forbidden);
  });
});

describe("PUT /customers/me/billing_profile: every rule of a field (422 validation_failed at the field)", () => {
  const refused = async (body: Record<string, unknown>, field: string) => {
    const auth = await token();
    await expectError(await put(auth, body), 422, { code: "validation_failed", source: { pointer: `/${field}` } });
    await expectError(await call(PATH, { token: auth }), 404, { code: "not_found" });
  };
  const accepted = async (body: Record<string, unknown>) => {
    const customer = unique("customer");
    await expectJson(await put(await token({ customer_id: customer }), body), 200, { data: shown(customer, body) });
  };

  it.each(["legal_name", "street", "postcode", "city", "country_code"])(
    "%s is required and not empty",
    async (field) => {
      const { [field as keyof typeof minimal]: _, ...without } = minimal;
      await refused(without, field);
      await refused({ ...minimal, [field]: "" }, field);
      await refused({ ...minimal, [field]: null }, field);
      await refused({ ...minimal, [field]: 5 }, field);
    },
  );

  it.each([
    ["legal_name", 200],
    ["street", 200],
    ["postcode", 16],
    ["city", 100],
    ["buyer_reference", 200],
    ["direct_debit_mandate_reference", 35],
  ])("%s holds at most %i characters (counted as characters: ß and emoji are one each)", async (field, max) => {
    await accepted({ ...minimal, [field]: "ß".repeat(max - 1) + "😀" });
    await refused({ ...minimal, [field]: "x".repeat(max + 1) }, field);
  });

  it.each([
    "legal_name",
    "street",
    "postcode",
    "city",
    "vat_id",
    "buyer_reference",
    "email",
    "direct_debit_iban",
    "direct_debit_mandate_reference",
  ])("%s takes no control or format characters, and no space at either end", async (field) => {
    for (const bad of ["A\u0000B", "A\nB", "A\u200bB", "A\u202eB", " AB", "AB "])
      await refused({ ...minimal, [field]: bad }, field);
  });

  it("country_code is an assigned ISO 3166-1 alpha-2 code in upper case", async () => {
    for (const code of ["AT", "GR", "CH", "US", "ZW", "AD"]) await accepted({ ...minimal, country_code: code });
    for (const code of ["de", "De", "XX", "UK", "EU", "D", "DEU", "AA", "ZZ"])
      await refused({ ...minimal, country_code: code }, "country_code");
  });

  it("vat_id matches ^[A-Z]{2}[0-9A-Z+*.]{2,13}$ and begins with the country code, EL for Greece", async () => {
    await accepted({ ...minimal, vat_id: "DE123456789" });
    await accepted({ ...minimal, country_code: "AT", vat_id: "ATU12345678" });
    await accepted({ ...minimal, country_code: "GR", vat_id: "EL123456789" });
    await accepted({ ...minimal, country_code: "NL", vat_id: "NL123456789B01" });
    await refused({ ...minimal, country_code: "GR", vat_id: "GR123456789" }, "vat_id");
    await refused({ ...minimal, vat_id: "AT123456789" }, "vat_id");
    await refused({ ...minimal, vat_id: "de123456789" }, "vat_id");
    await refused({ ...minimal, vat_id: "DE1" }, "vat_id");
    await refused({ ...minimal, vat_id: "DE12345678901234" }, "vat_id");
    await refused({ ...minimal, vat_id: "DE 123456789" }, "vat_id");
    await refused({ ...minimal, vat_id: "DE123-456" }, "vat_id");
  });

  it("email has one @, no whitespace, at most 254 characters", async () => {
    await accepted({ ...minimal, email: "a@b" });
    await accepted({ ...minimal, email: `${"a".repeat(240)}@example.com` });
    for (const email of ["ab", "a@b@c", "@b", "a@", "a b@c", "a@b\tc", `${"a".repeat(243)}@example.com`])
      await refused({ ...minimal, email }, "email");
  });

  it("direct_debit_iban is an IBAN in electronic form with a valid checksum", async () => {
    for (const iban of ["DE89370400440532013000", "GB82WEST12345698765432", "AT611904300234573201"])
      await accepted({ ...minimal, direct_debit_iban: iban });
    for (const iban of [
      "DE89370400440532013001",
      "DE89 3704 0044 0532 0130 00",
      "de89370400440532013000",
      "DE8937",
      "1234567890123456",
    ])
      await refused({ ...minimal, direct_debit_iban: iban }, "direct_debit_iban");
  });

  it("refuses an unknown field, and a body that is not a JSON object", async () => {
    await refused({ ...minimal, legalName: "x" }, "legalName");
    const auth = await token();
    await expectError(
      await call(PATH, { token: auth, method: "PUT", body: "[]", headers: { "Content-Type": "application/json" } }),
      400,
      {
        code: "invalid_json",
      },
    );
  });
});

describe("submit needs the billing profile (docs/api.md part 13)", () => {
  async function draftWithEntry(auth: string, body: object = newCardOrder) {
    const order = await createCardOrder(auth, body, { profile: false });
    await addEntry(auth, order.id);
    return order;
  }
  const submit = (auth: string, id: string) => call(`/card_orders/${id}/submit`, { token: auth, method: "POST" });
  const stateOf = async (id: string) =>
    (await env.DB.prepare("SELECT state FROM card_orders WHERE id = ?").bind(id).first<{ state: string }>())?.state;

  it("without a profile: 409 conflict saying to PUT it first; the order stays a draft", async () => {
    const auth = await token();
    const order = await draftWithEntry(auth);
    await expectError(await submit(auth, order.id), 409, {
      code: "conflict",
      detail: expect.stringContaining("PUT /customers/me/billing_profile"),
    });
    expect(await stateOf(order.id)).toBe("draft");
    await put(auth, minimal);
    expect((await submit(auth, order.id)).status).toBe(200);
  });

  it("the entries check comes first: an empty draft without a profile answers 409 invalid_state", async () => {
    const auth = await token();
    const order = await createCardOrder(auth, newCardOrder, { profile: false });
    await expectError(await submit(auth, order.id), 409, { code: "invalid_state" });
  });

  it("direct debit needs the profile's IBAN and mandate reference", async () => {
    const auth = await token();
    const order = await draftWithEntry(auth, { ...newCardOrder, payment_method: "direct_debit" });
    await put(auth, minimal);
    await expectError(await submit(auth, order.id), 409, {
      code: "conflict",
      detail: expect.stringContaining("direct_debit_iban"),
    });
    await put(auth, { ...minimal, direct_debit_iban: "DE89370400440532013000" });
    await expectError(await submit(auth, order.id), 409, { code: "conflict" });
    expect(await stateOf(order.id)).toBe("draft");
    await put(auth, { ...minimal, direct_debit_iban: "DE89370400440532013000", direct_debit_mandate_reference: "M-1" });
    expect((await submit(auth, order.id)).status).toBe(200);
  });
});

describe("PUT /customers/me/billing_profile changing nothing", () => {
  it("writes nothing and emits no event: it answers the profile as it is, updated_at unchanged", async () => {
    const auth = await token();
    const first = await expectJson(await put(auth, newBillingProfile), 200, expect.anything());
    await expectJson(await put(auth, newBillingProfile), 200, first);
    const events = await expectJson(await call("/events", { token: auth }), 200, expect.anything());
    expect(events.data.map((event: { type: string }) => event.type)).toStrictEqual(["billing_profile.updated"]);
    const changed = await expectJson(
      await put(auth, { ...newBillingProfile, city: "Augsburg" }),
      200,
      expect.anything(),
    );
    expect(changed.data.updated_at > first.data.updated_at).toBe(true);
  });
});
