import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Entry } from "../src/schemas/entry";
import {
  addEntry,
  BASE,
  call,
  createCardOrder,
  expectError,
  expectJson,
  ISO_MS,
  newEntry,
  orderIn,
  seedEntries,
  singlePage,
  token,
  unique,
  UUID,
  listLink,
} from "./support/api";
import { fieldsOf } from "./support/shape";

const entriesOf = (orderId: string) => `/card_orders/${orderId}/entries`;

async function getOrder(auth: string, id: string): Promise<any> {
  return ((await (await call(`/card_orders/${id}`, { token: auth })).json()) as any).data;
}

async function storedEntries(orderId: string) {
  const { results } = await env.DB.prepare(
    "SELECT id, voucher_owner_id, card_holder_name, amount FROM card_order_entries " +
      "WHERE order_id = ? ORDER BY created_at, id",
  )
    .bind(orderId)
    .all();
  return results;
}

describe("POST /card_orders/{id}/entries", () => {
  it("adds an entry: 201, single-page envelope, documented field order; order's count, updated_at move", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    const path = entriesOf(order.id);
    const body = { voucher_owner_id: "owner-7", card_holder_name: "Zoë O'Brien-Łukasz", amount: "1234.50" };

    const response = await call(path, { token: auth, json: body });
    const { data } = await expectJson(
      response,
      201,
      singlePage(path, [
        {
          id: expect.stringMatching(UUID),
          type: "card_order_entry",
          ...body,
          created_at: expect.stringMatching(ISO_MS),
          updated_at: expect.stringMatching(ISO_MS),
        },
      ]),
    );
    expect(Object.keys(data[0])).toStrictEqual(fieldsOf(Entry));
    expect(data[0].updated_at).toBe(data[0].created_at);

    const after = await getOrder(auth, order.id);
    expect(after).toStrictEqual({ ...order, entries_count: 1, updated_at: expect.stringMatching(ISO_MS) });
    expect(after.updated_at > order.updated_at).toBe(true);
    expect(await storedEntries(order.id)).toStrictEqual([
      { id: data[0].id, voucher_owner_id: "owner-7", card_holder_name: "Zoë O'Brien-Łukasz", amount: 123450 },
    ]);
  });

  it("accepts the bounds: 1.00 and 10000.00, 26-character name, 255-character owner, cards per owner", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    const accepted = [
      { ...newEntry, amount: "1.00" },
      { ...newEntry, amount: "10000.00" },
      { ...newEntry, card_holder_name: "ä".repeat(26) },
      { ...newEntry, card_holder_name: "🎁".repeat(26) },
      { ...newEntry, card_holder_name: "Jean-Luc d'Aubigné Ø" },
      { ...newEntry, card_holder_name: "José María Núñez" },
      { ...newEntry, card_holder_name: "李小龍" },
      { ...newEntry, card_holder_name: "محمد علي" },
      { ...newEntry, voucher_owner_id: "o".repeat(255) },
    ];
    for (const body of accepted) expect((await addEntry(auth, order.id, body)).amount).toBe(body.amount);
    expect((await getOrder(auth, order.id)).entries_count).toBe(accepted.length);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ["everything missing", {}, ["/voucher_owner_id", "/card_holder_name", "/amount"]],
    ["amount as a JSON number", { ...newEntry, amount: 25 }, ["/amount"]],
    ["amount as a JSON number with decimals", { ...newEntry, amount: 25.5 }, ["/amount"]],
    ["amount below 1.00", { ...newEntry, amount: "0.99" }, ["/amount"]],
    ["amount above 10000.00", { ...newEntry, amount: "10000.01" }, ["/amount"]],
    ["amount with one decimal", { ...newEntry, amount: "25.0" }, ["/amount"]],
    ["amount without decimals", { ...newEntry, amount: "25" }, ["/amount"]],
    ["amount with a leading zero", { ...newEntry, amount: "025.00" }, ["/amount"]],
    ["amount with a comma", { ...newEntry, amount: "25,00" }, ["/amount"]],
    ["amount negative", { ...newEntry, amount: "-25.00" }, ["/amount"]],
    ["amount null", { ...newEntry, amount: null }, ["/amount"]],
    ["card_holder_name of 27 characters", { ...newEntry, card_holder_name: "x".repeat(27) }, ["/card_holder_name"]],
    ["card_holder_name empty", { ...newEntry, card_holder_name: "" }, ["/card_holder_name"]],
    ["card_holder_name with a newline", { ...newEntry, card_holder_name: "Ada\nLovelace" }, ["/card_holder_name"]],
    ["card_holder_name with NUL", { ...newEntry, card_holder_name: "Ada\u0000" }, ["/card_holder_name"]],
    ["card_holder_name with DEL", { ...newEntry, card_holder_name: "Ada\u007f" }, ["/card_holder_name"]],
    ["card_holder_name with a C1 control", { ...newEntry, card_holder_name: "Ada\u0085" }, ["/card_holder_name"]],
    ["card_holder_name of spaces only", { ...newEntry, card_holder_name: "   " }, ["/card_holder_name"]],
    ["card_holder_name of a no-break space only", { ...newEntry, card_holder_name: "\u00a0" }, ["/card_holder_name"]],
    ["card_holder_name with a leading space", { ...newEntry, card_holder_name: " Ada" }, ["/card_holder_name"]],
    ["card_holder_name with a trailing tab", { ...newEntry, card_holder_name: "Ada\t" }, ["/card_holder_name"]],
    [
      "card_holder_name with an ideographic space at the end",
      { ...newEntry, card_holder_name: "Ada\u3000" },
      ["/card_holder_name"],
    ],
    [
      "card_holder_name with a right-to-left override (Cf)",
      { ...newEntry, card_holder_name: "Ada\u202eecalevoL" },
      ["/card_holder_name"],
    ],
    [
      "card_holder_name with a zero-width space (Cf)",
      { ...newEntry, card_holder_name: "Ada\u200bLovelace" },
      ["/card_holder_name"],
    ],
    [
      "card_holder_name with a zero-width joiner (Cf)",
      { ...newEntry, card_holder_name: "Ada\u200dLovelace" },
      ["/card_holder_name"],
    ],
    [
      "card_holder_name with a byte-order mark (Cf)",
      { ...newEntry, card_holder_name: "\ufeffAda" },
      ["/card_holder_name"],
    ],
    [
      "card_holder_name with a line separator (Zl)",
      { ...newEntry, card_holder_name: "Ada\u2028Lovelace" },
      ["/card_holder_name"],
    ],
    [
      "card_holder_name with a paragraph separator (Zp)",
      { ...newEntry, card_holder_name: "Ada\u2029Lovelace" },
      ["/card_holder_name"],
    ],
    [
      "card_holder_name with a private-use character (Co)",
      { ...newEntry, card_holder_name: "Ada\ue000" },
      ["/card_holder_name"],
    ],
    [
      "card_holder_name with an unassigned code point (Cn)",
      { ...newEntry, card_holder_name: "Ada\u0378" },
      ["/card_holder_name"],
    ],
    [
      "card_holder_name with a noncharacter (Cn)",
      { ...newEntry, card_holder_name: "Ada\uffff" },
      ["/card_holder_name"],
    ],
    ["voucher_owner_id empty", { ...newEntry, voucher_owner_id: "" }, ["/voucher_owner_id"]],
    ["voucher_owner_id of 256 characters", { ...newEntry, voucher_owner_id: "o".repeat(256) }, ["/voucher_owner_id"]],
    ["an unknown field", { ...newEntry, quantity: 2 }, ["/quantity"]],
    [
      "every field wrong at once",
      { voucher_owner_id: 1, card_holder_name: ["x"], amount: 1 },
      ["/voucher_owner_id", "/card_holder_name", "/amount"],
    ],
  ])("answers 422 with one pointer per field for %s, and stores nothing", async (_, body, pointers) => {
    const auth = await token();
    const order = await createCardOrder(auth);
    await expectError(
      await call(entriesOf(order.id), { token: auth, json: body }),
      422,
      ...pointers.map((pointer) => ({ code: "validation_failed", source: { pointer } })),
    );
    expect(await storedEntries(order.id)).toStrictEqual([]);
    expect(await getOrder(auth, order.id)).toStrictEqual(order);
  });

  it("says a JSON number is refused because amounts are decimal strings", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    const body = await expectError(
      await call(entriesOf(order.id), { token: auth, json: { ...newEntry, amount: 25 } }),
      422,
      { code: "validation_failed", source: { pointer: "/amount" } },
    );
    expect(body.errors[0].detail).toMatch(/decimal string/);
  });

  it.each(["submitted", "in_production", "delivered", "cancelled"] as const)(
    "answers 409 invalid_state on a %s order, and changes nothing",
    async (state) => {
      const auth = await token();
      const order = await orderIn(auth, state);
      const body = await expectError(await call(entriesOf(order.id), { token: auth, json: newEntry }), 409, {
        code: "invalid_state",
      });
      expect(body.errors[0].detail).toMatch(/draft/);
      expect(await getOrder(auth, order.id)).toStrictEqual(order);
      expect(await storedEntries(order.id)).toHaveLength(1);
    },
  );

  it("answers 422 rather than 409 to a bad body for a submitted order (the body is checked first)", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    await expectError(await call(entriesOf(order.id), { token: auth, json: { ...newEntry, amount: 1 } }), 422, {
      code: "validation_failed",
      source: { pointer: "/amount" },
    });
  });

  it("answers 404 for another customer's order, exactly as for an unknown one, and adds nothing there", async () => {
    const owner = await token();
    const order = await createCardOrder(owner);
    const intruder = await token();
    const foreign = await expectError(await call(entriesOf(order.id), { token: intruder, json: newEntry }), 404, {
      code: "not_found",
    });
    const unknown = await expectError(
      await call(entriesOf(crypto.randomUUID()), { token: intruder, json: newEntry }),
      404,
      { code: "not_found" },
    );
    expect(foreign).toStrictEqual(unknown);
    expect(await storedEntries(order.id)).toStrictEqual([]);
  });

  it("holds at most 500 entries: the 501st answers 409 conflict and changes nothing", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    await seedEntries(order.id, 499);
    await addEntry(auth, order.id);
    const full = await getOrder(auth, order.id);
    expect(full.entries_count).toBe(500);
    const body = await expectError(await call(entriesOf(order.id), { token: auth, json: newEntry }), 409, {
      code: "conflict",
    });
    expect(body.errors[0].detail).toMatch(/500/);
    expect(await getOrder(auth, order.id)).toStrictEqual(full);
  });

  it("holds at most 500 entries under concurrent requests: of 8 racing for the last 3 places, 3 get in", {
    timeout: 60_000,
  }, async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    await seedEntries(order.id, 497);
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(entriesOf(order.id), { token: auth, json: { ...newEntry, voucher_owner_id: `racer-${i}` } }),
      ),
    );
    const statuses = responses.map((r) => r.status).toSorted();
    expect(statuses).toStrictEqual([201, 201, 201, 409, 409, 409, 409, 409]);
    expect((await getOrder(auth, order.id)).entries_count).toBe(500);
    expect(await storedEntries(order.id)).toHaveLength(500);
  });

  it("never lets an entry in after a racing submit: either the entry counts or the submit saw it", {
    timeout: 60_000,
  }, async () => {
    for (let round = 0; round < 5; round++) {
      const auth = await token();
      const order = await orderIn(auth, "draft");
      const [added, submitted] = await Promise.all([
        call(entriesOf(order.id), { token: auth, json: newEntry }),
        call(`/card_orders/${order.id}/submit`, { token: auth, method: "POST" }),
      ]);
      const after = await getOrder(auth, order.id);
      const stored = await storedEntries(order.id);
      expect(after.entries_count).toBe(stored.length);
      expect(after.entries_count).toBe(added.status === 201 ? 2 : 1);
      if (submitted.status === 200)
        expect(((await submitted.json()) as any).data.entries_count).toBe(after.entries_count);
    }
  });
});

describe("GET /card_orders/{id}/entries", () => {
  it("pages the entries newest first, totals from entries_count, links keep other parameters", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    const added = [];
    for (let i = 0; i < 3; i++)
      added.push(await addEntry(auth, order.id, { ...newEntry, card_holder_name: `Holder ${i}` }));
    const newest = added.toReversed();
    const path = entriesOf(order.id);
    const at = (page: number) => `${path}?x=1&page_size=2&page=${page}`;
    const link = (page: number) => listLink(at(page), page > 1);
    await expectJson(await call(`${path}?x=1&page_size=2`, { token: auth }), 200, {
      meta: { total_pages: 2, current_page: 1, page_size: 2, total_entries: 3 },
      data: newest.slice(0, 2),
      links: { self: BASE + at(1), first: BASE + at(1), last: link(2), prev: null, next: link(2) },
    });
    await expectJson(await call(`${path}?x=1&page_size=2&page=2`, { token: auth }), 200, {
      meta: { total_pages: 2, current_page: 2, page_size: 2, total_entries: 3 },
      data: newest.slice(2),
      links: { self: BASE + at(2), first: BASE + at(1), last: link(2), prev: link(1), next: null },
    });
  });

  it("answers an empty first page for an order without entries, and 404 for another customer's order", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    const link = `${BASE}${entriesOf(order.id)}?page=1&page_size=25`;
    await expectJson(await call(entriesOf(order.id), { token: auth }), 200, {
      meta: { total_pages: 1, current_page: 1, page_size: 25, total_entries: 0 },
      data: [],
      links: { self: link, first: link, last: link, prev: null, next: null },
    });
    await expectError(await call(entriesOf(order.id), { token: await token() }), 404, { code: "not_found" });
    await expectError(await call(entriesOf("not-an-id"), { token: auth }), 404, { code: "not_found" });
  });

  it("needs card_orders:read", async () => {
    const order = await createCardOrder(await token());
    await expectError(await call(entriesOf(order.id), { token: await token({ scope: "card_orders:write" }) }), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
  });
});

describe("DELETE /card_orders/{id}/entries/{entry_id}", () => {
  it("removes the entry: 204; the order's count and updated_at move", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    const [kept, removed] = [
      await addEntry(auth, order.id),
      await addEntry(auth, order.id, { ...newEntry, amount: "3.00" }),
    ];
    const before = await getOrder(auth, order.id);
    const response = await call(`${entriesOf(order.id)}/${removed.id}`, { token: auth, method: "DELETE" });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    const after = await getOrder(auth, order.id);
    expect(after).toStrictEqual({ ...before, entries_count: 1, updated_at: expect.stringMatching(ISO_MS) });
    expect(after.updated_at > before.updated_at).toBe(true);
    expect((await storedEntries(order.id)).map((row) => row.id)).toStrictEqual([kept.id]);
  });

  it("answers 404 for an entry the order lacks: unknown, already deleted, another order's, or not an id", async () => {
    const auth = await token();
    const [order, other] = [await createCardOrder(auth), await createCardOrder(auth)];
    const entry = await addEntry(auth, order.id);
    const elsewhere = await addEntry(auth, other.id);
    await expectError(
      await call(`${entriesOf(order.id)}/${crypto.randomUUID()}`, { token: auth, method: "DELETE" }),
      404,
      { code: "not_found" },
    );
    await expectError(await call(`${entriesOf(order.id)}/${elsewhere.id}`, { token: auth, method: "DELETE" }), 404, {
      code: "not_found",
    });
    await expectError(await call(`${entriesOf(order.id)}/x'--`, { token: auth, method: "DELETE" }), 404, {
      code: "not_found",
    });
    expect((await call(`${entriesOf(order.id)}/${entry.id}`, { token: auth, method: "DELETE" })).status).toBe(204);
    await expectError(await call(`${entriesOf(order.id)}/${entry.id}`, { token: auth, method: "DELETE" }), 404, {
      code: "not_found",
    });
    expect(await storedEntries(other.id)).toHaveLength(1);
  });

  it("answers 409 invalid_state on a submitted order, but 404 first when the entry does not exist", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted");
    const [entry] = ((await (await call(entriesOf(order.id), { token: auth })).json()) as any).data;
    await expectError(await call(`${entriesOf(order.id)}/${entry.id}`, { token: auth, method: "DELETE" }), 409, {
      code: "invalid_state",
    });
    await expectError(
      await call(`${entriesOf(order.id)}/${crypto.randomUUID()}`, { token: auth, method: "DELETE" }),
      404,
      { code: "not_found" },
    );
    expect(await getOrder(auth, order.id)).toStrictEqual(order);
  });

  it("answers 404 for another customer's order and leaves its entry alone", async () => {
    const owner = await token();
    const order = await createCardOrder(owner);
    const entry = await addEntry(owner, order.id);
    await expectError(
      await call(`${entriesOf(order.id)}/${entry.id}`, { token: await token(), method: "DELETE" }),
      404,
      { code: "not_found" },
    );
    expect(await storedEntries(order.id)).toHaveLength(1);
  });

  it("keeps entries_count equal to the entries through any mix of adds and deletes", async () => {
    const auth = await token({ customer_id: unique("customer") });
    const order = await createCardOrder(auth);
    const live: string[] = [];
    for (let step = 0; step < 12; step++) {
      if (step % 3 === 2) {
        const id = live.shift()!;
        expect((await call(`${entriesOf(order.id)}/${id}`, { token: auth, method: "DELETE" })).status).toBe(204);
      } else live.push((await addEntry(auth, order.id)).id);
      expect((await getOrder(auth, order.id)).entries_count).toBe(live.length);
    }
    const { results } = await env.DB.prepare(
      "SELECT o.entries_count AS kept, (SELECT count(*) FROM card_order_entries e WHERE e.order_id = o.id) AS actual " +
        "FROM card_orders o WHERE o.id = ?",
    )
      .bind(order.id)
      .all();
    expect(results).toStrictEqual([{ kept: live.length, actual: live.length }]);
  });
});
