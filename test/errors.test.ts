import { describe, expect, it } from "vitest";
import {
  BASE,
  call,
  createCardOrder,
  expectError,
  expectJson,
  newCardOrder,
  orderIn,
  send,
  token,
} from "./support/api";

const KIB = 1024;
const LIMIT = 64 * KIB;

/** Calls the Worker module directly (no service binding in between) with these variables on top. */

/** POST /card_orders with this raw body and Content-Type: application/json. */
async function postRaw(
  body: BodyInit,
  auth?: string,
  contentType: string | null = "application/json",
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (contentType !== null) headers["Content-Type"] = contentType;
  return call("/card_orders", { method: "POST", token: auth ?? (await token()), body, headers });
}

/** A card order body of exactly `size` bytes whose description is too long (so a body that is read answers 422). */
function bodyOfSize(size: number): string {
  const head = '{"voucher_category":"mixed","payment_method":"bank_transfer","description":"';
  const tail = '"}';
  return head + "x".repeat(size - head.length - tail.length) + tail;
}

describe("400 invalid_json", () => {
  it.each([
    ["not JSON", "voucher_category=mixed"],
    ["truncated JSON", '{"voucher_category":"mixed","payment_method":"bank_tr'],
    ["an empty body", ""],
    ["only whitespace", "  \n "],
    ["a JSON array", '[{"voucher_category":"mixed","payment_method":"bank_transfer"}]'],
    ["an empty JSON array", "[]"],
    ["null", "null"],
    ["a JSON string", '"mixed"'],
    ["a JSON number", "42"],
    ["true", "true"],
    ["two JSON objects", '{"voucher_category":"mixed"}{"payment_method":"bank_transfer"}'],
    ["a trailing comma", '{"voucher_category":"mixed","payment_method":"bank_transfer",}'],
    ["single quotes", "{'voucher_category':'mixed'}"],
    ["NaN", '{"voucher_category":"mixed","payment_method":"bank_transfer","description":NaN}'],
  ])("answers %s", async (_, body) => {
    await expectError(await postRaw(body), 400, { code: "invalid_json", source: {} });
  });

  it("answers bytes that are not UTF-8", async () => {
    const prefix = new TextEncoder().encode(
      '{"voucher_category":"mixed","payment_method":"bank_transfer","description":"',
    );
    const bytes = new Uint8Array([...prefix, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]);
    await expectError(await postRaw(bytes), 400, { code: "invalid_json", source: {} });
  });

  it("answers UTF-16 text", async () => {
    const text = '{"voucher_category":"mixed","payment_method":"bank_transfer"}';
    const utf16 = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) utf16[i * 2] = text.charCodeAt(i);
    await expectError(await postRaw(utf16), 400, { code: "invalid_json", source: {} });
  });

  it.each([
    ["10,000 levels of [", "[".repeat(10_000) + "]".repeat(10_000)],
    ["10,000 unclosed [", "[".repeat(10_000)],
    ["10,000 levels of objects", '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000)],
    [
      "deep nesting inside a field of a valid object",
      '{"voucher_category":"mixed","payment_method":"bank_transfer","description":' +
        `${"[".repeat(5_000)}${"]".repeat(5_000)}}`,
    ],
  ])(
    "answers JSON nested deeper than the limit (%s), never 500",
    async (_, body) => {
      await expectError(await postRaw(body), 400, { code: "invalid_json", source: {} });
    },
    30_000,
  );

  it("does not count brackets inside strings as nesting", async () => {
    const description = '\\"' + "[{".repeat(100);
    const response = await postRaw(
      `{"voucher_category":"mixed","payment_method":"bank_transfer","description":"${description}"}`,
    );
    const body = await expectJson(response, 201, expect.anything());
    expect(body.data[0].description).toBe('"' + "[{".repeat(100));
  });

  it("writes nothing for a refused body", async () => {
    const auth = await token();
    await postRaw("[]", auth);
    await postRaw("{", auth);
    const list = await expectJson(await call("/card_orders", { token: auth }), 200, expect.anything());
    expect(list.meta.total_entries).toBe(0);
  });

  it("applies to the notification token PUT too", async () => {
    const response = await call("/voucher_owners/me/notification_tokens", {
      method: "PUT",
      token: await token(),
      body: '["value","device"]',
      headers: { "Content-Type": "application/json" },
    });
    await expectError(response, 400, { code: "invalid_json", source: {} });
  });
});

describe("404 not_found for unknown routes", () => {
  it.each([
    ["GET", "//"],
    ["GET", "/nope"],
    ["GET", "/card_orders/"],
    ["GET", "/CARD_ORDERS"],
    ["GET", "/card_orders/some-id/items"],
    ["POST", "/card_orders/some-id/archive"],
    ["DELETE", "/nope"],
    ["GET", "/voucher_owners/someone-else/notification_tokens"],
    ["GET", "/openapi.yaml"],
  ])("%s %s answers the error envelope", async (method, path) => {
    await expectError(await call(path, { method, token: await token() }), 404, { code: "not_found", source: {} });
  });

  it("answers the same without a token", async () => {
    await expectError(await call("/nope"), 404, { code: "not_found", source: {} });
  });
});

describe("405 method_not_allowed with Allow", () => {
  const allowOf = (response: Response) =>
    (response.headers.get("Allow") ?? "")
      .split(",")
      .map((m) => m.trim())
      .sort();

  it.each([
    ["DELETE", "/card_orders", ["GET", "HEAD", "POST"]],
    ["PUT", "/card_orders", ["GET", "HEAD", "POST"]],
    ["PATCH", "/card_orders/{id}", ["GET", "HEAD"]],
    ["DELETE", "/card_orders/{id}", ["GET", "HEAD"]],
    ["GET", "/card_orders/{id}/submit", ["POST"]],
    ["PUT", "/invoices", ["GET", "HEAD", "POST"]],
    ["GET", "/invoices/{id}/pay", ["POST"]],
    ["POST", "/voucher_owners/me/notification_tokens", ["GET", "HEAD", "PUT"]],
    ["GET", "/voucher_owners/me/notification_tokens/{id}", ["DELETE"]],
    ["POST", "/health", ["GET", "HEAD"]],
    ["DELETE", "/openapi.json", ["GET", "HEAD"]],
  ])("%s %s lists %j", async (method, path, allowed) => {
    const response = await call(path.replace("{id}", crypto.randomUUID()), { method, token: await token() });
    await expectError(response, 405, { code: "method_not_allowed", source: {} });
    expect(allowOf(response)).toStrictEqual(allowed);
  });

  it("answers the same whether or not the id exists", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    const existing = await call(`/card_orders/${order.id}`, {
      method: "PATCH",
      token: auth,
      json: { description: "x" },
    });
    const missing = await call(`/card_orders/${crypto.randomUUID()}`, {
      method: "PATCH",
      token: auth,
      json: { description: "x" },
    });
    const body = await expectError(existing, 405, { code: "method_not_allowed", source: {} });
    expect(missing.status).toBe(405);
    expect(await missing.json()).toStrictEqual(body);
    expect(missing.headers.get("Allow")).toBe(existing.headers.get("Allow"));
    // Nothing changed.
    await expectJson(await call(`/card_orders/${order.id}`, { token: auth }), 200, { data: order });
  });
});

describe("413 payload_too_large", { timeout: 30_000 }, () => {
  it("answers a body over 64 KiB sent with Content-Length", async () => {
    const body = bodyOfSize(LIMIT + 1);
    const response = await call("/card_orders", {
      token: await token(),
      body,
      headers: { "Content-Type": "application/json", "Content-Length": String(body.length) },
    });
    await expectError(response, 413, { code: "payload_too_large", source: {} });
  });

  it("answers a much larger body (1 MiB)", async () => {
    await expectError(await postRaw(bodyOfSize(1024 * KIB)), 413, { code: "payload_too_large", source: {} });
  });

  it("answers a chunked body without Content-Length once past the limit, reading no chunk after that", async () => {
    const chunk = new TextEncoder().encode("x".repeat(16 * KIB));
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 1 MiB in all, unless the reader stops early.
        if (pulled++ < 64) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const request = {
      method: "POST",
      body,
      headers: { Authorization: `Bearer ${await token()}`, "Content-Type": "application/json" },
    };
    const response = await send(new Request(BASE + "/card_orders", request));
    await expectError(response, 413, { code: "payload_too_large", source: {} });
    // The Worker reads a clone of the body (request-body.ts): what it holds is bounded all the same.
    expect(pulled).toBeLessThanOrEqual(LIMIT / chunk.byteLength + 1);
  });

  it("reads a body of exactly 64 KiB (then validates it: 422)", async () => {
    const response = await postRaw(bodyOfSize(LIMIT));
    await expectError(response, 422, { code: "validation_failed", source: { pointer: "/description" } });
  });

  it("reads a chunked body of just under 64 KiB", async () => {
    const bytes = new TextEncoder().encode(bodyOfSize(LIMIT - 100));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 4 * KIB)
          controller.enqueue(bytes.slice(offset, offset + 4 * KIB));
        controller.close();
      },
    });
    const request = {
      method: "POST",
      body,
      headers: { Authorization: `Bearer ${await token()}`, "Content-Type": "application/json" },
    };
    await expectError(await send(new Request(BASE + "/card_orders", request)), 422, {
      code: "validation_failed",
      source: { pointer: "/description" },
    });
  });
});

describe("415 unsupported_media_type", () => {
  const valid = JSON.stringify(newCardOrder);

  it.each([
    ["text/plain", "text/plain"],
    ["text/plain with charset", "text/plain;charset=UTF-8"],
    ["form data", "application/x-www-form-urlencoded"],
    ["multipart", "multipart/form-data; boundary=x"],
    ["charset latin-1", "application/json; charset=latin-1"],
    ["charset iso-8859-1", "application/json; charset=iso-8859-1"],
    ["a lookalike type", "application/jsonp"],
    ["an empty value", ""],
  ])("refuses a JSON body sent as %s", async (_, contentType) => {
    await expectError(await postRaw(valid, undefined, contentType), 415, {
      code: "unsupported_media_type",
      source: { header: "Content-Type" },
    });
  });

  it("refuses a body without Content-Type", async () => {
    await expectError(await postRaw(new TextEncoder().encode(valid), undefined, null), 415, {
      code: "unsupported_media_type",
      source: { header: "Content-Type" },
    });
  });

  it("refuses a notification token PUT sent as text/plain", async () => {
    const response = await call("/voucher_owners/me/notification_tokens", {
      method: "PUT",
      token: await token(),
      body: JSON.stringify({ value: "v", device_identifier: "d" }),
      headers: { "Content-Type": "text/plain" },
    });
    await expectError(response, 415, { code: "unsupported_media_type", source: { header: "Content-Type" } });
  });

  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    'application/json; charset="utf-8"',
    "Application/JSON",
  ])("accepts %s", async (contentType) => {
    expect((await postRaw(valid, undefined, contentType)).status).toBe(201);
  });

  it("lets a transition POST go without Content-Type and without body", async () => {
    const auth = await token();
    const order = await orderIn(auth, "draft");
    const response = await call(`/card_orders/${order.id}/submit`, { method: "POST", token: auth });
    const body = await expectJson(response, 200, expect.anything());
    expect(body.data.state).toBe("submitted");
  });
});

describe("500 internal_error", () => {
  it("discloses nothing when the Worker is misconfigured (no JWT_SECRET, no JWT_JWKS_URL)", async () => {
    const response = await send(
      new Request(BASE + "/card_orders", {
        headers: { Authorization: `Bearer ${await token()}` },
      }),
      { JWT_SECRET: undefined, JWT_JWKS_URL: undefined },
    );
    const text = await response.clone().text();
    await expectError(response, 500, { code: "internal_error", source: {} });
    expect(text).not.toMatch(/Error|JWT_|stack|\bat \w|\.ts\b|\.js\b|\/work\/|node_modules|src\//);
    expect(response.headers.get("X-Request-Id")).toMatch(/\S/);
  });
});

describe("order of the checks", { timeout: 30_000 }, () => {
  const badBodies: [string, BodyInit, string][] = [
    ["text/plain", "{}", "text/plain"],
    ["invalid JSON", "{", "application/json"],
    ["an invalid field", JSON.stringify({ voucher_category: "platinum" }), "application/json"],
    ["a body over 64 KiB", bodyOfSize(LIMIT * 2), "application/json"],
  ];

  it.each(badBodies)("answers 401 before looking at a body with %s", async (_, body, contentType) => {
    const response = await call("/card_orders", { method: "POST", body, headers: { "Content-Type": contentType } });
    await expectError(response, 401, { code: "unauthorized", source: { header: "Authorization" } });
  });

  it.each(badBodies)("answers 401 for a rejected token before a body with %s", async (_, body, contentType) => {
    const response = await call("/card_orders", {
      method: "POST",
      body,
      headers: { "Content-Type": contentType, Authorization: "Bearer not.a.token" },
    });
    await expectError(response, 401, { code: "unauthorized", source: { header: "Authorization" } });
  });

  it.each(badBodies)("answers 403 for a missing scope before a body with %s", async (_, body, contentType) => {
    const response = await call("/card_orders", {
      method: "POST",
      token: await token({ scope: "card_orders:read" }),
      body,
      headers: { "Content-Type": contentType },
    });
    await expectError(response, 403, { code: "forbidden", source: { header: "Authorization" } });
  });

  it.each(badBodies)("answers 403 for a missing customer_id before a body with %s", async (_, body, contentType) => {
    const response = await call("/card_orders", {
      method: "POST",
      token: await token({ customer_id: undefined }),
      body,
      headers: { "Content-Type": contentType },
    });
    await expectError(response, 403, { code: "forbidden", source: { header: "Authorization" } });
  });

  it("answers 415 before reading the body", async () => {
    await expectError(await postRaw("{", undefined, "text/plain"), 415, {
      code: "unsupported_media_type",
      source: { header: "Content-Type" },
    });
    await expectError(await postRaw(bodyOfSize(LIMIT * 2), undefined, "text/plain"), 415, {
      code: "unsupported_media_type",
      source: { header: "Content-Type" },
    });
  });

  it("answers 413 before parsing", async () => {
    await expectError(await postRaw("[".repeat(LIMIT + 1)), 413, { code: "payload_too_large", source: {} });
  });

  it("answers 400 before validating fields", async () => {
    await expectError(await postRaw('{"voucher_category":"platinum"'), 400, { code: "invalid_json", source: {} });
  });
});
