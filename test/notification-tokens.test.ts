import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SCOPES } from "./interface-fields";
import { BASE, call, expectError, expectJson, follow, ISO_MS, listLink, token, unique } from "./support/api";

const PATH = "/voucher_owners/me/notification_tokens";

const register = (auth: string, json: unknown) => call(PATH, { method: "PUT", token: auth, json });
const remove = (auth: string, device: string) =>
  call(`${PATH}/${encodeURIComponent(device)}`, { method: "DELETE", token: auth });

/** Registers a token and insists on 204 with no body. */
async function registered(auth: string, device_identifier: string, value: string) {
  const response = await register(auth, { value, device_identifier });
  expect({ status: response.status, body: await response.text() }).toStrictEqual({ status: 204, body: "" });
}

/** The caller's devices as the API lists them (first page). */
async function devices(auth: string): Promise<{ device_identifier: string; created_at: string; updated_at: string }[]> {
  const response = await call(PATH, { token: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as any).data;
}

interface StoredToken {
  owner_id: string;
  device_identifier: string;
  value: string;
  created_at: string;
  updated_at: string;
}

async function storedFor(owner: string): Promise<StoredToken[]> {
  const { results } = await env.DB.prepare(
    "SELECT * FROM notification_tokens WHERE owner_id = ? ORDER BY device_identifier",
  )
    .bind(owner)
    .all<StoredToken>();
  return results;
}

async function storedWithValue(value: string): Promise<StoredToken[]> {
  const { results } = await env.DB.prepare("SELECT * FROM notification_tokens WHERE value = ?")
    .bind(value)
    .all<StoredToken>();
  return results;
}

const owner = async () => {
  const sub = unique("owner");
  return { sub, auth: await token({ sub }) };
};

const firstPage = (data: unknown[]) => {
  const link = `${BASE}${PATH}?page=1&page_size=25`;
  return {
    meta: { total_pages: 1, current_page: 1, page_size: 25, total_entries: data.length },
    data,
    links: { self: link, first: link, last: link, prev: null, next: null },
  };
};

describe("PUT /voucher_owners/me/notification_tokens", () => {
  it("registers a device's token: 204 with no body, then listed without its value", async () => {
    const { sub, auth } = await owner();
    const value = unique("fcm-secret-value");
    const response = await register(auth, { value, device_identifier: "phone" });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");

    const list = await call(PATH, { token: auth });
    const text = await list.clone().text();
    expect(text).not.toContain(value);
    const body = await expectJson(
      list,
      200,
      firstPage([
        {
          device_identifier: "phone",
          created_at: expect.stringMatching(ISO_MS),
          updated_at: expect.stringMatching(ISO_MS),
        },
      ]),
    );
    const [device] = body.data;
    expect(device.updated_at).toBe(device.created_at);
    expect(Date.now() - Date.parse(device.created_at)).toBeLessThan(60_000);

    expect(await storedFor(sub)).toStrictEqual([
      {
        owner_id: sub,
        device_identifier: "phone",
        value,
        created_at: device.created_at,
        updated_at: device.updated_at,
      },
    ]);
  });

  it("replaces the value on a repeated PUT for the same device, keeping created_at, advancing updated_at", async () => {
    const { sub, auth } = await owner();
    const [oldValue, newValue] = [unique("old"), unique("new")];
    await registered(auth, "phone", oldValue);
    const [before] = await devices(auth);

    await registered(auth, "phone", newValue);
    const after = await devices(auth);
    expect(after).toStrictEqual([
      { device_identifier: "phone", created_at: before!.created_at, updated_at: expect.stringMatching(ISO_MS) },
    ]);
    expect(Date.parse(after[0]!.updated_at)).toBeGreaterThan(Date.parse(before!.updated_at));

    expect((await storedFor(sub)).map((row) => row.value)).toStrictEqual([newValue]);
    expect(await storedWithValue(oldValue)).toStrictEqual([]);
  });

  it("keeps the registration when the same value is put again for the same device", async () => {
    const { sub, auth } = await owner();
    const value = unique("same");
    await registered(auth, "phone", value);
    await registered(auth, "phone", value);
    expect((await storedFor(sub)).map((row) => [row.device_identifier, row.value])).toStrictEqual([["phone", value]]);
  });

  it("moves a value registered by another voucher owner: the first owner no longer has it", async () => {
    const first = await owner();
    const second = await owner();
    const value = unique("shared");
    await registered(first.auth, "phone", value);
    await registered(first.auth, "tablet", unique("other"));

    await registered(second.auth, "new-phone", value);

    expect((await devices(first.auth)).map((d) => d.device_identifier)).toStrictEqual(["tablet"]);
    expect((await devices(second.auth)).map((d) => d.device_identifier)).toStrictEqual(["new-phone"]);
    expect((await storedWithValue(value)).map((row) => [row.owner_id, row.device_identifier])).toStrictEqual([
      [second.sub, "new-phone"],
    ]);
  });

  it("moves a value to another device of the same owner", async () => {
    const { sub, auth } = await owner();
    const value = unique("moving");
    await registered(auth, "old-phone", value);
    await registered(auth, "new-phone", value);

    expect((await devices(auth)).map((d) => d.device_identifier)).toStrictEqual(["new-phone"]);
    expect((await storedFor(sub)).map((row) => [row.device_identifier, row.value])).toStrictEqual([
      ["new-phone", value],
    ]);
  });

  it("counts lengths in characters: a 4096-emoji value and a 255-emoji device identifier pass", async () => {
    const { sub, auth } = await owner();
    const value = "🔔".repeat(4096);
    const device = "📱".repeat(255);
    await registered(auth, device, value);
    expect(await devices(auth)).toStrictEqual([
      {
        device_identifier: device,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
      },
    ]);
    expect((await storedFor(sub)).map((row) => [row.device_identifier, row.value])).toStrictEqual([[device, value]]);
  });

  it.each([
    ["value missing", { device_identifier: "d" }, [["/value", "value is required."]]],
    ["device_identifier missing", { value: "v" }, [["/device_identifier", "device_identifier is required."]]],
    [
      "both missing",
      {},
      [
        ["/value", "value is required."],
        ["/device_identifier", "device_identifier is required."],
      ],
    ],
    ["value empty", { value: "", device_identifier: "d" }, [["/value", "value must not be empty."]]],
    [
      "device_identifier empty",
      { value: "v", device_identifier: "" },
      [["/device_identifier", "device_identifier must not be empty."]],
    ],
    [
      "value of 4097 characters",
      { value: "x".repeat(4097), device_identifier: "d" },
      [["/value", "value must be at most 4096 characters."]],
    ],
    [
      "value of 4097 emoji",
      { value: "🔔".repeat(4097), device_identifier: "d" },
      [["/value", "value must be at most 4096 characters."]],
    ],
    [
      "device_identifier of 256 characters",
      { value: "v", device_identifier: "d".repeat(256) },
      [["/device_identifier", "device_identifier must be at most 255 characters."]],
    ],
    ["value a number", { value: 42, device_identifier: "d" }, [["/value", "value must be a string."]]],
    ["value null", { value: null, device_identifier: "d" }, [["/value", "value must be a string."]]],
    [
      "device_identifier an object",
      { value: "v", device_identifier: { id: 1 } },
      [["/device_identifier", "device_identifier must be a string."]],
    ],
    [
      "device_identifier a boolean",
      { value: "v", device_identifier: true },
      [["/device_identifier", "device_identifier must be a string."]],
    ],
    [
      "an unknown field",
      { value: "v", device_identifier: "d", platform: "ios" },
      [["/platform", '"platform" is not a known field.']],
    ],
  ])("answers 422 with pointers when %s, and stores nothing", async (_, json, errors) => {
    const { sub, auth } = await owner();
    const response = await register(auth, json);
    await expectError(
      response,
      422,
      ...errors.map(([pointer, detail]) => ({ code: "validation_failed", source: { pointer: pointer! }, detail })),
    );
    expect(await storedFor(sub)).toStrictEqual([]);
  });

  it("leaves an existing registration untouched when a replacement is refused", async () => {
    const { sub, auth } = await owner();
    const value = unique("kept");
    await registered(auth, "phone", value);
    const before = await storedFor(sub);
    await expectError(await register(auth, { value: "x".repeat(4097), device_identifier: "phone" }), 422, {
      code: "validation_failed",
      source: { pointer: "/value" },
    });
    expect(await storedFor(sub)).toStrictEqual(before);
  });
});

describe("at most 20 devices per voucher owner", () => {
  it("registering a 21st device replaces the least recently updated one, in the same write", async () => {
    const { sub, auth } = await owner();
    for (let i = 0; i < 20; i++) await registered(auth, `device-${String(i).padStart(2, "0")}`, unique("v"));
    // device-00 was registered first, but a repeated PUT makes it the most recently updated.
    await registered(auth, "device-00", unique("v"));
    await registered(auth, "device-20", unique("v"));
    const stored = (await storedFor(sub)).map((row) => row.device_identifier);
    expect(stored).toHaveLength(20);
    expect(stored).not.toContain("device-01");
    expect(stored).toContain("device-00");
    expect(stored).toContain("device-20");
    expect((await devices(auth)).length).toBe(20);
  });

  it("replacing the value of a device an owner of 20 has evicts nothing", async () => {
    const { sub, auth } = await owner();
    for (let i = 0; i < 20; i++) await registered(auth, `device-${i}`, unique("v"));
    await registered(auth, "device-7", unique("v"));
    expect(await storedFor(sub)).toHaveLength(20);
  });

  it("holds under concurrent registrations: 30 new devices at once leave 20", { timeout: 60_000 }, async () => {
    const { sub, auth } = await owner();
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => register(auth, { value: unique("v"), device_identifier: `racer-${i}` })),
    );
    expect(responses.map((r) => r.status)).toStrictEqual(Array(30).fill(204));
    expect(await storedFor(sub)).toHaveLength(20);
  });
});

describe("GET /voucher_owners/me/notification_tokens", () => {
  it("answers an empty first page for an owner without devices", async () => {
    await expectJson(await call(PATH, { token: (await owner()).auth }), 200, firstPage([]));
  });

  it("pages the caller's devices newest first, never showing the values", async () => {
    const { auth } = await owner();
    const values = [unique("v0"), unique("v1"), unique("v2")];
    for (const [i, value] of values.entries()) await registered(auth, `device-${i}`, value);
    const all = await devices(auth);
    const ordered = all.toSorted((a, b) =>
      a.created_at === b.created_at
        ? a.device_identifier < b.device_identifier
          ? 1
          : -1
        : a.created_at < b.created_at
          ? 1
          : -1,
    );
    expect(all).toStrictEqual(ordered);
    expect(all.map((d) => d.device_identifier).toSorted()).toStrictEqual(["device-0", "device-1", "device-2"]);

    const at = (page: number) => `${PATH}?page_size=2&page=${page}`;
    const link = (page: number) => listLink(at(page), page > 1);
    const first = await call(`${PATH}?page_size=2`, { token: auth });
    const firstText = await first.clone().text();
    for (const value of values) expect(firstText).not.toContain(value);
    await expectJson(first, 200, {
      meta: { total_pages: 2, current_page: 1, page_size: 2, total_entries: 3 },
      data: all.slice(0, 2),
      links: { self: BASE + at(1), first: BASE + at(1), last: link(2), prev: null, next: link(2) },
    });
    const second = await call(`${PATH}?page_size=2&page=2`, { token: auth });
    const secondText = await second.clone().text();
    for (const value of values) expect(secondText).not.toContain(value);
    await expectJson(second, 200, {
      meta: { total_pages: 2, current_page: 2, page_size: 2, total_entries: 3 },
      data: all.slice(2),
      links: { self: BASE + at(2), first: BASE + at(1), last: link(2), prev: link(1), next: null },
    });
  });

  // Cursor pages (db/keyset.ts) while devices already passed go; card orders never go, so
  // these lists show it.
  const sixDevices = async () => {
    const auth = await token();
    for (let i = 0; i < 6; i++) await registered(auth, `d${i}`, unique("fcm"));
    return auth;
  };
  const identifiers = (page: { data: { device_identifier: string }[] }) =>
    page.data.map((device) => device.device_identifier);

  it("following next while passed devices go: a page keeps its next past the count; ends on a full page", async () => {
    const auth = await sixDevices();
    const pages: any[] = [await follow(`${BASE}${PATH}?page_size=2`, auth)];
    // The two devices of page 1 go: the count now says 2 pages, but 4 devices follow page 1.
    for (const device of ["d5", "d4"]) expect((await remove(auth, device)).status).toBe(204);
    while (pages.at(-1).links.next) pages.push(await follow(pages.at(-1).links.next, auth));
    expect(
      pages.map((page) => ({ page: page.meta.current_page, of: page.meta.total_pages, devices: identifiers(page) })),
    ).toStrictEqual([
      { page: 1, of: 3, devices: ["d5", "d4"] },
      { page: 2, of: 2, devices: ["d3", "d2"] },
      // The row each page reads ahead says whether rows follow: none after d0, so no next.
      { page: 3, of: 2, devices: ["d1", "d0"] },
    ]);
  });

  it("a page reached by prev after newer devices went keeps its next, which leads on to the rest", async () => {
    const auth = await sixDevices();
    const pages: any[] = [await follow(`${BASE}${PATH}?page_size=2`, auth)];
    for (let i = 0; i < 2; i++) pages.push(await follow(pages.at(-1).links.next, auth));
    // The newest three go: page 2 by prev from page 3 now holds one device, and the list goes on.
    for (const device of ["d5", "d4", "d3"]) expect((await remove(auth, device)).status).toBe(204);
    const back = await follow(pages[2].links.prev, auth);
    expect(identifiers(back)).toStrictEqual(["d2"]);
    expect(identifiers(await follow(back.links.next, auth))).toStrictEqual(["d1", "d0"]);
  });

  it("answers 400 invalid_parameter for a bad page_size", async () => {
    await expectError(await call(`${PATH}?page_size=0`, { token: (await owner()).auth }), 400, {
      code: "invalid_parameter",
      source: { parameter: "page_size" },
    });
  });
});

describe("DELETE /voucher_owners/me/notification_tokens/{device_identifier}", () => {
  it("removes the device's token: 204 with no body, and 204 again when already gone", async () => {
    const { sub, auth } = await owner();
    await registered(auth, "phone", unique("v"));
    await registered(auth, "tablet", unique("v"));

    const response = await remove(auth, "phone");
    expect({ status: response.status, body: await response.text() }).toStrictEqual({ status: 204, body: "" });
    expect((await devices(auth)).map((d) => d.device_identifier)).toStrictEqual(["tablet"]);
    expect((await storedFor(sub)).map((row) => row.device_identifier)).toStrictEqual(["tablet"]);

    const again = await remove(auth, "phone");
    expect({ status: again.status, body: await again.text() }).toStrictEqual({ status: 204, body: "" });
    const never = await remove(auth, "never-registered");
    expect(never.status).toBe(204);
    expect((await storedFor(sub)).map((row) => row.device_identifier)).toStrictEqual(["tablet"]);
  });

  it.each([
    ["slashes", "ios/device/42"],
    ["spaces", "my phone  2"],
    ["unicode", "Jürgens Gerät 📱"],
    ["a percent sign", "100% battery"],
    ["an encoded-looking text", "a%2Fb"],
    ["URL punctuation", "?q=1&x=#frag;+"],
    ["a leading dot", ".hidden"],
  ])("deletes a device identifier with %s when percent-encoded in the path", async (_, device) => {
    const { sub, auth } = await owner();
    await registered(auth, device, unique("v"));
    expect((await devices(auth)).map((d) => d.device_identifier)).toStrictEqual([device]);

    expect((await remove(auth, device)).status).toBe(204);
    expect(await devices(auth)).toStrictEqual([]);
    expect(await storedFor(sub)).toStrictEqual([]);
  });

  // URL parsing turns a "." or ".." segment, percent-encoded or not, into a path step, so no DELETE
  // path could name such a device: it is refused at registration.
  it.each([".", ".."])("refuses the device identifier %s, which no DELETE path could remove", async (device) => {
    const { sub, auth } = await owner();
    const put = await register(auth, { value: unique("v"), device_identifier: device });
    await expectError(put, 422, {
      code: "validation_failed",
      source: { pointer: "/device_identifier" },
      detail: 'device_identifier must not be "." or "..", which no URL path can name.',
    });
    expect(await storedFor(sub)).toStrictEqual([]);
  });

  it("removes only the caller's device, never another owner's device of the same name", async () => {
    const first = await owner();
    const second = await owner();
    await registered(first.auth, "phone", unique("v"));
    await registered(second.auth, "phone", unique("v"));

    expect((await remove(second.auth, "phone")).status).toBe(204);
    expect((await devices(first.auth)).map((d) => d.device_identifier)).toStrictEqual(["phone"]);
    expect(await storedFor(first.sub)).toHaveLength(1);
    expect(await storedFor(second.sub)).toStrictEqual([]);
  });
});

describe("notification token access", () => {
  it("keeps owners apart: each lists only its own devices, even under the same device identifier", async () => {
    const first = await owner();
    const second = await owner();
    await registered(first.auth, "phone", unique("v"));
    await registered(first.auth, "watch", unique("v"));
    await registered(second.auth, "phone", unique("v"));

    expect((await devices(first.auth)).map((d) => d.device_identifier).toSorted()).toStrictEqual(["phone", "watch"]);
    expect((await devices(second.auth)).map((d) => d.device_identifier)).toStrictEqual(["phone"]);
  });

  it("belongs to the voucher owner (sub), whatever customer the token names", async () => {
    const sub = unique("owner");
    await registered(await token({ sub, customer_id: "tenant-a" }), "phone", unique("v"));
    expect(
      (await devices(await token({ sub, customer_id: "tenant-b" }))).map((d) => d.device_identifier),
    ).toStrictEqual(["phone"]);
  });

  it("works with a token that names no customer: PUT, GET and DELETE", async () => {
    const sub = unique("owner");
    const auth = await token({ sub, customer_id: undefined, scope: "notification_tokens:write" });
    await registered(auth, "phone", unique("v"));
    expect((await devices(auth)).map((d) => d.device_identifier)).toStrictEqual(["phone"]);
    expect((await remove(auth, "phone")).status).toBe(204);
    expect(await storedFor(sub)).toStrictEqual([]);
  });

  it.each([
    ["PUT", PATH, { value: "v", device_identifier: "d" }],
    ["GET", PATH, undefined],
    ["DELETE", `${PATH}/phone`, undefined],
  ])("%s %s answers 401 to a token without sub", async (method, path, json) => {
    const response = await call(path, { method, token: await token({ sub: undefined }), json });
    await expectError(response, 401, { code: "unauthorized", source: { header: "Authorization" } });
    expect(response.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it.each([
    ["PUT", PATH, { value: "v", device_identifier: "d" }],
    ["GET", PATH, undefined],
    ["DELETE", `${PATH}/phone`, undefined],
  ])(
    "%s %s answers 403 without the notification_tokens:write scope, and writes nothing",
    async (method, path, json) => {
      const sub = unique("owner");
      const auth = await token({ sub, scope: SCOPES.filter((s) => s !== "notification_tokens:write").join(" ") });
      await expectError(await call(path, { method, token: auth, json }), 403, {
        code: "forbidden",
        source: { header: "Authorization" },
      });
      expect(await storedFor(sub)).toStrictEqual([]);
    },
  );

  it("answers 405 with the allowed methods for other methods on the collection and on a device", async () => {
    const { auth } = await owner();
    const collection = await call(PATH, { method: "POST", token: auth, json: { value: "v", device_identifier: "d" } });
    await expectError(collection, 405, { code: "method_not_allowed" });
    expect(collection.headers.get("Allow")?.split(", ").toSorted()).toStrictEqual(["GET", "HEAD", "PUT"]);
    const device = await call(`${PATH}/phone`, { method: "GET", token: auth });
    await expectError(device, 405, { code: "method_not_allowed" });
    expect(device.headers.get("Allow")).toBe("DELETE");
  });
});
