import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { endpoints } from "../src/app";
import { openApiDocument } from "../src/openapi/document";
import {
  BASE,
  call,
  createCardOrder,
  expectError,
  JSON_TYPE,
  newCardOrder,
  orderIn,
  send,
  token,
  unique,
  UUID,
  type Bindings,
} from "./support/api";
import { FaultyD1 } from "./support/faulty-d1";
import { routeOf } from "./support/shape";

// The Worker serves the document that scripts/build-assets.mjs wrote among the static assets
// (vitest.config.ts runs it before the tests).
describe("GET /openapi.json", () => {
  it("answers the document of today's routes and schemas, not a stale build", async () => {
    const response = await call("/openapi.json");
    expect(response.status).toBe(200);
    expect(await response.json()).toStrictEqual(JSON.parse(JSON.stringify(openApiDocument(endpoints))));
  });

  it("carries the Worker's headers, cacheable for 5 minutes", async () => {
    const response = await call("/openapi.json");
    expect(response.headers.get("Content-Type")).toBe(JSON_TYPE);
    expect(response.headers.get("Cache-Control")).toBe("public, max-age=300");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it("answers 500 internal_error, not an empty document, when the asset is missing", async () => {
    const ASSETS = { fetch: async () => new Response("Not Found", { status: 404 }) } as unknown as Fetcher;
    await expectError(await send(new Request(`${BASE}/openapi.json`), { ASSETS }), 500, { code: "internal_error" });
  });
});

describe("the document's response headers", () => {
  const document = JSON.parse(JSON.stringify(openApiDocument(endpoints)));
  const resolve = (header: any) => (header.$ref ? document.components.headers[header.$ref.split("/").pop()] : header);
  // Content-Type is the media type of the content; OpenAPI ignores a header of that name.
  const NOT_HEADERS = new Set(["content-type", "content-length"]);

  /**
   * Each header `response` carries is declared on its operation's response, and each declared
   * `required` one is there.
   */
  function expectDeclared(request: Request, response: Response) {
    const { pathname } = new URL(request.url);
    const spec = routeOf(request.method, pathname)!;
    const declared = document.paths[spec.path][spec.method].responses[response.status]?.headers;
    const where = `${request.method} ${spec.path} ${response.status}`;
    expect(declared, where).toBeDefined();
    const names = Object.keys(declared).map((name) => name.toLowerCase());
    const sent = [...response.headers.keys()].filter((name) => !NOT_HEADERS.has(name));
    expect(
      sent.filter((name) => !names.includes(name)),
      `undeclared headers of ${where}`,
    ).toStrictEqual([]);
    const required = Object.entries(declared)
      .filter(([, header]) => resolve(header).required)
      .map(([name]) => name.toLowerCase());
    expect(
      required.filter((name) => !response.headers.has(name)),
      `required headers missing from ${where}`,
    ).toStrictEqual([]);
  }

  const check = async (
    status: number,
    path: string,
    {
      auth,
      method = "GET",
      json,
      headers = {},
      bindings = {},
    }: { auth?: string; method?: string; json?: unknown; headers?: Record<string, string>; bindings?: Bindings } = {},
  ) => {
    const sent = {
      ...headers,
      ...(auth ? { Authorization: `Bearer ${auth}` } : {}),
      ...(json === undefined ? {} : { "Content-Type": "application/json" }),
    };
    const request = new Request(BASE + path, {
      method,
      headers: sent,
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const response = await send(request.clone(), bindings);
    expect(response.status, `${method} ${path}`).toBe(status);
    expectDeclared(request, response);
    return response;
  };

  it("are those of the successes, replays and 204s", async () => {
    const auth = await token();
    const create = { auth, method: "POST", json: newCardOrder, headers: { "Idempotency-Key": unique("key") } };
    await check(201, "/card_orders", create);
    expect((await check(201, "/card_orders", create)).headers.get("Idempotent-Replayed")).toBe("true");
    await check(200, "/card_orders", { auth });
    await check(204, "/voucher_owners/me/notification_tokens", {
      auth,
      method: "PUT",
      json: { value: unique("v"), device_identifier: "d" },
    });
    for (const path of ["/health", "/openapi.json", "/docs"]) await check(200, path);
  });

  it("are those of the errors", async () => {
    const auth = await token();
    const draft = await createCardOrder(auth);
    const submitted = await orderIn(auth, "submitted");
    await check(401, "/card_orders");
    await check(403, "/card_orders", { auth: await token({ scope: "invoices:read" }) });
    await check(400, "/card_orders?page=0", { auth });
    await check(404, `/card_orders/${crypto.randomUUID()}`, { auth });
    await check(409, `/card_orders/${draft.id}/submit`, { auth, method: "POST" }); // a draft without entries
    await check(409, `/card_orders/${submitted.id}/submit`, { auth, method: "POST" }); // submitted already
    await check(422, "/invoices", { auth, method: "POST", json: { order_id: crypto.randomUUID() } });
    await check(429, "/card_orders", {
      auth,
      bindings: { RATE_LIMITER: { limit: async () => ({ success: false }) } as unknown as RateLimit },
    });
    await check(503, "/card_orders", { auth, bindings: { DB: new FaultyD1(env.DB).failCall(1).binding } });
  });
});
