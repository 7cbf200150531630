import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { writeCursor, type Seek } from "../src/pagination/cursor";
import {
  BASE,
  call,
  CARD_ORDER_FIELDS,
  createCardOrder,
  expectError,
  expectJson,
  follow,
  ISO_MS,
  listLink,
  newCardOrder,
  orderIn,
  send,
  singlePage,
  token,
  unique,
  UUID,
} from "./support/api";
import { sampleOf } from "./support/shape";
import { CardOrder } from "../src/schemas/card-order";

// A new order shows null in every nullable field it does not set.
const draftOrder = (customer: string, fields: Record<string, unknown> = {}) => ({
  ...sampleOf(CardOrder),
  id: expect.stringMatching(UUID),
  state: "draft",
  state_label: "Draft",
  created_at: expect.stringMatching(ISO_MS),
  updated_at: expect.stringMatching(ISO_MS),
  is_cancellable: true,
  customer,
  payment_method: "bank_transfer",
  voucher_category: "mixed",
  entries_count: 0,
  ...fields,
});

describe("POST /card_orders", () => {
  it("creates a draft order and answers 201 with the single-page envelope, fields in documented order", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const response = await call("/card_orders", { token: auth, json: newCardOrder });

    const body = await expectJson(response, 201, singlePage("/card_orders", [draftOrder(customer)]));
    const [order] = body.data;
    expect(Object.keys(order)).toStrictEqual(CARD_ORDER_FIELDS);
    expect(order.updated_at).toBe(order.created_at);
    expect(Date.now() - Date.parse(order.created_at)).toBeLessThan(60_000);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("X-Request-Id")).toMatch(UUID);
    expect(response.headers.get("x-d1-bookmark")).toMatch(/\S/);

    // Stored exactly as answered.
    await expectJson(await call(`/card_orders/${order.id}`, { token: auth }), 200, { data: order });
  });

  it("stores every optional field exactly, unicode, emoji, quotes and SQL-looking text included", async () => {
    const customer = unique("customer");
    const auth = await token({ customer_id: customer });
    const fields = {
      voucher_category: "gift",
      description: "Grüße 🎁 \"quoted\" 'single' \\ back",
      invoice_reference: "'); DROP TABLE card_orders; --",
      cost_center: "CC-4711\n\ttab",
      payment_method: "direct_debit",
    };
    const response = await call("/card_orders", { token: auth, json: fields });
    const body = await expectJson(response, 201, singlePage("/card_orders", [draftOrder(customer, fields)]));
    await expectJson(await call(`/card_orders/${body.data[0].id}`, { token: auth }), 200, { data: body.data[0] });
  });

  it("accepts null for the optional fields and every allowed category and payment method", async () => {
    const auth = await token();
    for (const voucher_category of ["mixed", "meal", "gift"]) {
      for (const payment_method of ["bank_transfer", "direct_debit"]) {
        const order = await createCardOrder(auth, {
          voucher_category,
          payment_method,
          description: null,
          invoice_reference: null,
          cost_center: null,
        });
        expect(order).toMatchObject({
          voucher_category,
          payment_method,
          description: null,
          invoice_reference: null,
          cost_center: null,
        });
      }
    }
  });

  it("counts length in characters: 255 emoji pass, 256 characters do not", async () => {
    const auth = await token();
    const order = await createCardOrder(auth, { ...newCardOrder, description: "😀".repeat(255) });
    expect(order.description).toBe("😀".repeat(255));

    const response = await call("/card_orders", {
      token: auth,
      json: { ...newCardOrder, cost_center: "x".repeat(256) },
    });
    await expectError(response, 422, {
      code: "validation_failed",
      source: { pointer: "/cost_center" },
      detail: "cost_center must be at most 255 characters.",
    });
  });

  it("answers 422 with one error per offending field, each with its pointer", async () => {
    const auth = await token();
    const response = await call("/card_orders", {
      token: auth,
      json: {
        voucher_category: "platinum",
        description: 42,
        invoice_reference: ["x"],
        cost_center: "ok",
        nickname: "typo",
        "a/b~c": 1,
      },
    });
    await expectError(
      response,
      422,
      {
        code: "validation_failed",
        source: { pointer: "/voucher_category" },
        detail: "voucher_category must be one of: mixed, meal, gift.",
      },
      {
        code: "validation_failed",
        source: { pointer: "/description" },
        detail: "description must be a string or null.",
      },
      {
        code: "validation_failed",
        source: { pointer: "/invoice_reference" },
        detail: "invoice_reference must be a string or null.",
      },
      { code: "validation_failed", source: { pointer: "/payment_method" }, detail: "payment_method is required." },
      { code: "validation_failed", source: { pointer: "/nickname" }, detail: '"nickname" is not a known field.' },
      { code: "validation_failed", source: { pointer: "/a~1b~0c" }, detail: '"a/b~c" is not a known field.' },
    );
  });

  it("reports at most 20 errors, however many fields are wrong", async () => {
    const junk = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`field${i}`, i]));
    const response = await call("/card_orders", { token: await token(), json: { ...newCardOrder, ...junk } });
    const body = await expectJson(response, 422, { errors: expect.any(Array) });
    expect(body.errors).toHaveLength(20);
    expect(body.errors[0]).toStrictEqual({
      detail: '"field0" is not a known field.',
      code: "validation_failed",
      source: { pointer: "/field0" },
    });
  });

  it("reports each missing required field", async () => {
    await expectError(
      await call("/card_orders", { token: await token(), json: {} }),
      422,
      { code: "validation_failed", source: { pointer: "/voucher_category" }, detail: "voucher_category is required." },
      { code: "validation_failed", source: { pointer: "/payment_method" }, detail: "payment_method is required." },
    );
  });

  // docs/api.md part 5: "" in an optional text field (what /docs' Test Request sends for a field left
  // blank) is refused with its pointer, not stored as a second way to say none; a blank is text.
  it("refuses an empty optional text field, each with its pointer, and stores nothing", async () => {
    const auth = await token();
    const empty = { description: "", invoice_reference: "", cost_center: "" };
    for (const [field, value] of Object.entries(empty))
      await expectError(await call("/card_orders", { token: auth, json: { ...newCardOrder, [field]: value } }), 422, {
        code: "validation_failed",
        source: { pointer: `/${field}` },
        detail: `${field} must not be empty; send null or leave it out.`,
      });
    await expectError(
      await call("/card_orders", { token: auth, json: { ...newCardOrder, ...empty } }),
      422,
      ...Object.keys(empty).map((field) => ({
        code: "validation_failed",
        source: { pointer: `/${field}` },
        detail: `${field} must not be empty; send null or leave it out.`,
      })),
    );
    const list = await expectJson(await call("/card_orders", { token: auth }), 200, expect.anything());
    expect(list.data).toStrictEqual([]);

    const kept = await createCardOrder(auth, { ...newCardOrder, description: " ", invoice_reference: null });
    expect([kept.description, kept.invoice_reference, kept.cost_center]).toStrictEqual([" ", null, null]);
  });

  it("refuses text with unpaired surrogates, which could not be stored faithfully", async () => {
    const response = await call("/card_orders", {
      token: await token(),
      body: '{"voucher_category":"mixed","payment_method":"bank_transfer","description":"\\ud800"}',
      headers: { "Content-Type": "application/json" },
    });
    await expectError(response, 422, { code: "validation_failed", source: { pointer: "/description" } });
  });

  it("writes nothing when the request is refused", async () => {
    const auth = await token();
    await call("/card_orders", { token: auth, json: { ...newCardOrder, description: 1 } });
    const list = await expectJson(await call("/card_orders", { token: auth }), 200, expect.anything());
    expect(list.meta.total_entries).toBe(0);
    expect(list.data).toStrictEqual([]);
  });
});

describe("GET /card_orders/{id}", () => {
  it("answers {data: order}", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    const response = await call(`/card_orders/${order.id}`, { token: auth });
    await expectJson(response, 200, { data: order });
  });

  it("answers 404 for another customer's order, exactly as for one that does not exist", async () => {
    const order = await createCardOrder(await token({ customer_id: "tenant-a" }));
    const other = await token({ customer_id: "tenant-b" });
    const foreign = await call(`/card_orders/${order.id}`, { token: other });
    const missing = await call(`/card_orders/${crypto.randomUUID()}`, { token: other });
    const foreignBody = await expectError(foreign, 404, { code: "not_found" });
    expect(await missing.json()).toStrictEqual(foreignBody);
  });

  it.each([
    ["SQL", "1' OR '1'='1"],
    ["emoji", "🧾🧾"],
    ["very long", "a".repeat(5000)],
    ["dots", "..."],
    ["upper-case uuid", crypto.randomUUID().toUpperCase()],
  ])("answers 404 for an id that matches nothing (%s)", async (_, id) => {
    await expectError(await call(`/card_orders/${encodeURIComponent(id)}`, { token: await token() }), 404, {
      code: "not_found",
    });
  });
});

describe("GET /card_orders", () => {
  it("pages newest first with absolute links that keep the other query parameters", async () => {
    const auth = await token();
    const created = [];
    for (let i = 0; i < 5; i++)
      created.push(await createCardOrder(auth, { ...newCardOrder, description: `order ${i}` }));
    const newestFirst = created.toReversed();
    const at = (page: number) => `/card_orders?tag=x+y&page_size=2&page=${page}`;
    // prev, next and last carry a cursor (docs/api.md part 4); page 1 never needs one.
    const link = (page: number) => listLink(at(page), page > 1);
    const pageOf = (page: number, data: unknown[], prev: number | null, next: number | null) => ({
      meta: { total_pages: 3, current_page: page, page_size: 2, total_entries: 5 },
      data,
      links: {
        self: BASE + at(page),
        first: BASE + at(1),
        last: link(3),
        prev: prev && link(prev),
        next: next && link(next),
      },
    });
    await expectJson(
      await call("/card_orders?tag=x+y&page_size=2", { token: auth }),
      200,
      pageOf(1, newestFirst.slice(0, 2), null, 2),
    );
    await expectJson(
      await call("/card_orders?tag=x+y&page_size=2&page=2", { token: auth }),
      200,
      pageOf(2, newestFirst.slice(2, 4), 1, 3),
    );
    await expectJson(
      await call("/card_orders?tag=x+y&page_size=2&page=3", { token: auth }),
      200,
      pageOf(3, newestFirst.slice(4), 2, null),
    );
    // Past the last page: 200, no entries, and prev leads back to the last page.
    await expectJson(
      await call("/card_orders?tag=x+y&page_size=2&page=9", { token: auth }),
      200,
      pageOf(9, [], 3, null),
    );
  });

  it("follows next and prev by cursor through every order once, and refuses a cursor that does not fit", async () => {
    const auth = await token();
    const created = [];
    for (let i = 0; i < 7; i++) created.push((await createCardOrder(auth)).id);
    const newest = created.toReversed();
    const seen: string[] = [];
    let next: string | null = `${BASE}/card_orders?page_size=3`;
    const pages: any[] = [];
    while (next) {
      const body: any = await follow(next, auth);
      pages.push(body);
      seen.push(...body.data.map((order: { id: string }) => order.id));
      next = body.links.next;
    }
    expect(seen).toStrictEqual(newest);
    expect(pages.map((page) => page.meta.current_page)).toStrictEqual([1, 2, 3]);
    // Back from the last page by prev, and straight to the last page by last.
    const back = await follow(pages[2].links.prev, auth);
    expect(back.data.map((order: { id: string }) => order.id)).toStrictEqual(newest.slice(3, 6));
    const last = await follow(pages[0].links.last, auth);
    expect({ page: last.meta.current_page, ids: last.data.map((order: { id: string }) => order.id) }).toStrictEqual({
      page: 3,
      ids: newest.slice(6),
    });
    // self keeps the cursor it was called with.
    expect(back.links.self).toBe(pages[2].links.prev);

    const cursor = new URL(pages[0].links.next).searchParams.get("cursor")!;
    const [payload, mac] = cursor.split(".");
    const tampered = `${payload!.slice(0, -2)}${payload!.slice(-2) === "AA" ? "AB" : "AA"}.${mac}`;
    for (const query of [
      `page_size=3&page=2&cursor=${tampered}`,
      `page_size=3&page=2&cursor=${payload}.${mac!.split("").reverse().join("")}`,
      `page_size=3&page=3&cursor=${cursor}`, // another page
      `page_size=4&page=2&cursor=${cursor}`, // another size
      `page_size=3&page=2&state=draft&cursor=${cursor}`, // another filter
      `page_size=3&page=2&cursor=not-a-cursor`,
    ]) {
      await expectError(await call(`/card_orders?${query}`, { token: auth }), 400, {
        code: "invalid_parameter",
        source: { parameter: "cursor" },
      });
    }
    await expectError(await call(`/invoices?page_size=3&page=2&cursor=${cursor}`, { token: auth }), 400, {
      code: "invalid_parameter",
      source: { parameter: "cursor" },
    });

    // A cursor of the mode written before a full last page lost its next ("after" a row), signed as
    // it was then: refused with the same 400, never read as another mode.
    const [list, page, size, , key] = JSON.parse(atob(payload!.replace(/-/g, "+").replace(/_/g, "/")));
    const after = await writeCursor(env.APP_SECRET, {
      list,
      page,
      size,
      seek: { mode: "after", key } as unknown as Seek,
    });
    await expectError(await call(`/card_orders?page_size=3&page=2&cursor=${after}`, { token: auth }), 400, {
      code: "invalid_parameter",
      source: { parameter: "cursor" },
    });
  });

  it("signs cursors with APP_SECRET: each secret signs its own, and one signed under another is refused", async () => {
    const auth = await token();
    for (let i = 0; i < 3; i++) await createCardOrder(auth);
    const page1 = (secret: string) =>
      send(new Request(`${BASE}/card_orders?page_size=1`, { headers: { Authorization: `Bearer ${auth}` } }), {
        APP_SECRET: secret,
      });
    const [a, b]: any[] = [await (await page1("secret-a")).json(), await (await page1("secret-b")).json()];
    // Asked twice, the same secret signs the same links; another secret signs others.
    expect(((await (await page1("secret-a")).json()) as any).links).toStrictEqual(a.links);
    expect([a.links.next === b.links.next, a.links.last === b.links.last]).toStrictEqual([false, false]);
    const followed = await send(new Request(a.links.next, { headers: { Authorization: `Bearer ${auth}` } }), {
      APP_SECRET: "secret-b",
    });
    await expectError(followed, 400, { code: "invalid_parameter", source: { parameter: "cursor" } });
    expect(
      (
        await send(new Request(a.links.next, { headers: { Authorization: `Bearer ${auth}` } }), {
          APP_SECRET: "secret-a",
        })
      ).status,
    ).toBe(200);
  });

  it("accepts a cursor signed under a secret in APP_SECRETS_PREVIOUS; signs new links with APP_SECRET", async () => {
    const auth = await token();
    for (let i = 0; i < 3; i++) await createCardOrder(auth);
    const get = (url: string, bindings: { APP_SECRET: string; APP_SECRETS_PREVIOUS?: string }) =>
      send(new Request(url, { headers: { Authorization: `Bearer ${auth}` } }), bindings);
    const before: any = await (await get(`${BASE}/card_orders?page_size=1`, { APP_SECRET: "secret-a" })).json();
    const rotated = { APP_SECRET: "secret-b", APP_SECRETS_PREVIOUS: "secret-older, secret-a" };
    const followed: any = await expectJson(await get(before.links.next, rotated), 200, expect.anything());
    expect(followed.meta.current_page).toBe(2);
    // Links are signed with the new secret only: they work once the old one is dropped.
    expect((await get(followed.links.next, { APP_SECRET: "secret-b" })).status).toBe(200);
    await expectError(await get(before.links.next, { APP_SECRET: "secret-b" }), 400, {
      code: "invalid_parameter",
      source: { parameter: "cursor" },
    });
    await expectError(
      await get(before.links.next, { APP_SECRET: "secret-b", APP_SECRETS_PREVIOUS: "secret-older" }),
      400,
      { code: "invalid_parameter", source: { parameter: "cursor" } },
    );
  });

  it("following next while orders are created: every order once, a short page is the last (none after)", async () => {
    const auth = await token();
    const created = [];
    for (let i = 0; i < 5; i++) created.push((await createCardOrder(auth)).id);
    const first: any = await expectJson(
      await call("/card_orders?page_size=2", { token: auth }),
      200,
      expect.anything(),
    );
    // Two newer orders arrive: the count grows to 4 pages, the rows after the cursor stay 3.
    for (let i = 0; i < 2; i++) await createCardOrder(auth);
    const second: any = await follow(first.links.next, auth);
    const third: any = await follow(second.links.next, auth);
    expect([first, second, third].flatMap((page) => page.data.map((order: { id: string }) => order.id))).toStrictEqual(
      created.toReversed(),
    );
    expect({
      page: third.meta.current_page,
      of: third.meta.total_pages,
      rows: third.data.length,
      next: third.links.next,
    }).toStrictEqual({ page: 3, of: 4, rows: 1, next: null });
  });

  it.each([1, 2, 3])(
    "following next through exactly %i full pages ends on the last, with next null (no empty page past it)",
    async (fullPages) => {
      const auth = await token();
      const created = [];
      for (let i = 0; i < fullPages * 2; i++) created.push((await createCardOrder(auth)).id);
      const pages: any[] = [await follow(`${BASE}/card_orders?page_size=2`, auth)];
      while (pages.at(-1).links.next) pages.push(await follow(pages.at(-1).links.next, auth));
      expect(
        pages.map((page) => [
          page.meta.current_page,
          page.meta.total_pages,
          page.data.length,
          page.links.next === null,
        ]),
      ).toStrictEqual(Array.from({ length: fullPages }, (_, i) => [i + 1, fullPages, 2, i === fullPages - 1]));
      expect(pages.flatMap((page) => page.data.map((order: { id: string }) => order.id))).toStrictEqual(
        created.toReversed(),
      );
      // By number too, and by last: the full last page has no next.
      const byNumber = await follow(`${BASE}/card_orders?page_size=2&page=${fullPages}`, auth);
      const last = await follow(pages[0].links.last, auth);
      expect([byNumber.data, byNumber.links.next, last.data, last.links.next]).toStrictEqual([
        pages.at(-1).data,
        null,
        pages.at(-1).data,
        null,
      ]);
    },
  );

  it("defaults to page 1 of 25 and answers an empty list with one page", async () => {
    const link = `${BASE}/card_orders?page=1&page_size=25`;
    await expectJson(await call("/card_orders", { token: await token() }), 200, {
      meta: { total_pages: 1, current_page: 1, page_size: 25, total_entries: 0 },
      data: [],
      links: { self: link, first: link, last: link, prev: null, next: null },
    });
  });

  it("filters by state and counts only the matching orders", async () => {
    const auth = await token();
    const [a, b] = [await orderIn(auth, "draft"), await createCardOrder(auth)];
    expect((await call(`/card_orders/${a.id}/submit`, { token: auth, method: "POST" })).status).toBe(200);

    const submitted = await expectJson(
      await call("/card_orders?state=submitted", { token: auth }),
      200,
      expect.anything(),
    );
    expect(submitted.meta.total_entries).toBe(1);
    expect(submitted.data.map((o: any) => [o.id, o.state])).toStrictEqual([[a.id, "submitted"]]);
    const drafts = await expectJson(await call("/card_orders?state=draft", { token: auth }), 200, expect.anything());
    expect(drafts.data.map((o: any) => o.id)).toStrictEqual([b.id]);
    expect(drafts.meta.total_entries).toBe(1);
    expect(drafts.links.self).toBe(`${BASE}/card_orders?state=draft&page=1&page_size=25`);
  });

  it("shows a customer only its own orders", async () => {
    const mine = await token();
    await createCardOrder(await token());
    const order = await createCardOrder(mine);
    const list = await expectJson(await call("/card_orders", { token: mine }), 200, expect.anything());
    expect(list.data).toStrictEqual([order]);
    expect(list.meta.total_entries).toBe(1);
  });

  it.each([
    ["page=0", "page"],
    ["page=-1", "page"],
    ["page=1.5", "page"],
    ["page=abc", "page"],
    ["page=", "page"],
    ["page=99999999999", "page"],
    ["page_size=0", "page_size"],
    ["page_size=101", "page_size"],
    ["page_size=1000", "page_size"],
    ["page=1&page=2", "page"],
    ["state=shipped", "state"],
    ["state=draft&state=submitted", "state"],
  ])("answers 400 invalid_parameter for %s", async (query, parameter) => {
    await expectError(await call(`/card_orders?${query}`, { token: await token() }), 400, {
      code: "invalid_parameter",
      source: { parameter },
    });
  });
});
