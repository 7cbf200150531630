import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  BASE,
  call,
  createCardOrder,
  expectError,
  expectJson,
  JSON_TYPE,
  newCardOrder,
  orderIn,
  send,
  token,
  unique,
  UUID,
} from "./support/api";
import { NO_BODY } from "../src/http/request-body";
import { againstInterface, REQUEST_FIELDS } from "./interface-fields";
import { requestOf, routeExamples } from "./support/examples";
import { PUBLIC_ROUTES, ROUTES, routeName } from "./support/routes";

const BOOKMARK = "x-d1-bookmark";

/** Calls the Worker module with these variables on top of the test environment. */

const accessControlHeaders = (response: Response) =>
  [...response.headers.keys()].filter((name) => name.toLowerCase().startsWith("access-control-"));

// Every route that uses the database, with its example (test/support/examples.ts): a route without
// one fails this file, naming it.
const ROUTE_EXAMPLES = routeExamples();

// A test that runs every route's example (each on its own fresh preconditions).
const EVERY_ROUTE_TIMEOUT_MS = 60_000;

type Kind = [name: string, status: number, send: () => Promise<Response>];

// The public routes, from the route table: answered without a token, each with its own caching
// (their specs' headers) and media type.
const publicKinds: Kind[] = PUBLIC_ROUTES.map((spec) => [routeName(spec), spec.success.status, () => call(spec.path)]);
const PUBLIC_KINDS = new Set(publicKinds.map(([name]) => name));
const NOT_JSON = new Set(
  PUBLIC_ROUTES.filter(({ success }) => success.mediaType !== undefined && !/json/.test(success.mediaType)).map(
    routeName,
  ),
);

// One request of each kind a client meets; each returns the response and the status it must have.
const kinds: Kind[] = [
  ["a success (GET /card_orders)", 200, async () => call("/card_orders", { token: await token() })],
  [
    "a creation (POST /card_orders)",
    201,
    async () => call("/card_orders", { token: await token(), json: newCardOrder }),
  ],
  [
    "a 204 (PUT notification token)",
    204,
    async () =>
      call("/voucher_owners/me/notification_tokens", {
        method: "PUT",
        token: await token(),
        json: { value: unique("v"), device_identifier: "d" },
      }),
  ],
  ["a 401", 401, async () => call("/card_orders")],
  ["a 403", 403, async () => call("/card_orders", { token: await token({ scope: "invoices:read" }) })],
  ["a 404 resource", 404, async () => call(`/card_orders/${crypto.randomUUID()}`, { token: await token() })],
  ["a 404 unknown route", 404, async () => call("/no/such/route")],
  ["a 405", 405, async () => call("/card_orders", { method: "DELETE", token: await token() })],
  [
    "a 415",
    415,
    async () => call("/card_orders", { token: await token(), body: "{}", headers: { "Content-Type": "text/plain" } }),
  ],
  ["a 422", 422, async () => call("/card_orders", { token: await token(), json: {} })],
  ...publicKinds,
];

describe("headers on every response", () => {
  it.each(kinds)("%s carries nosniff and a generated X-Request-Id", async (_, status, send) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it("gives every request its own id", async () => {
    const ids = new Set<string | null>();
    for (let i = 0; i < 5; i++) ids.add((await call("/health")).headers.get("X-Request-Id"));
    expect(ids.size).toBe(5);
  });

  it.each(["req-123", "a".repeat(128), "abc_DEF.1:2@host-x", crypto.randomUUID()])(
    "echoes a sane client X-Request-Id (%s)",
    async (id) => {
      expect((await call("/health", { headers: { "X-Request-Id": id } })).headers.get("X-Request-Id")).toBe(id);
      const failed = await call("/card_orders", { headers: { "X-Request-Id": id } });
      expect(failed.status).toBe(401);
      expect(failed.headers.get("X-Request-Id")).toBe(id);
    },
  );

  it.each([
    ["too long", "a".repeat(129)],
    ["with spaces", "my request id"],
    ["with a tab", "a\tb"],
    ["with a control character", "a\u0001b"],
    ["with markup", "<script>alert(1)</script>"],
    ["with quotes", '"quoted"'],
    ["with non-ASCII", "naïve"],
    ["empty", ""],
  ])("replaces an insane client X-Request-Id (%s) with a UUID", async (_, id) => {
    const response = await call("/health", { headers: { "X-Request-Id": id } });
    expect(response.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it.each(kinds.filter(([name]) => !PUBLIC_KINDS.has(name) && name !== "a 404 unknown route"))(
    "%s carries Cache-Control: no-store",
    async (_, status, send) => {
      const response = await send();
      expect(response.status).toBe(status);
      expect(response.headers.get("Cache-Control")).toBe("no-store");
    },
  );

  it.each(kinds.filter(([name, status]) => status !== 204 && !NOT_JSON.has(name)))(
    "%s is JSON with Content-Type exactly application/json; charset=utf-8",
    async (_, status, send) => {
      const response = await send();
      expect(response.status).toBe(status);
      expect(response.headers.get("Content-Type")).toBe(JSON_TYPE);
      expect(typeof JSON.parse(await response.text())).toBe("object");
    },
  );

  it(
    "answers 204 without a body or a Content-Type",
    async () => {
      const answering204 = ROUTE_EXAMPLES.filter(({ spec }) => spec.success.status === 204);
      expect(answering204.length).toBeGreaterThan(0);
      for (const { name, example } of answering204) {
        const response = await send(requestOf(await example.prepare()));
        expect(response.status, name).toBe(204);
        expect(await response.text(), name).toBe("");
        expect(response.headers.get("Content-Type"), name).toBeNull();
      }
    },
    EVERY_ROUTE_TIMEOUT_MS,
  );

  it("answers HEAD like GET, without a body", async () => {
    const response = await call("/card_orders", { method: "HEAD", token: await token() });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe(JSON_TYPE);
    expect(await response.text()).toBe("");
  });
});

describe("x-d1-bookmark", () => {
  it(
    "comes with every authenticated response that touched the database",
    async () => {
      const auth = await token();
      const order = await orderIn(auth, "submitted");
      // Refusals after the database was read; then every route's success: its example.
      const responses: [string, number, Response][] = [
        ["missing order", 404, await call(`/card_orders/${crypto.randomUUID()}`, { token: auth })],
        ["submit again (409)", 409, await call(`/card_orders/${order.id}/submit`, { method: "POST", token: auth })],
      ];
      for (const { name, example } of ROUTE_EXAMPLES) {
        responses.push([name, example.status, await send(requestOf(await example.prepare()))]);
      }
      for (const [name, status, response] of responses) {
        expect(response.status, name).toBe(status);
        expect(response.headers.get(BOOKMARK), name).toMatch(/\S/);
      }
    },
    EVERY_ROUTE_TIMEOUT_MS,
  );

  it("a write that loses to a concurrent change still answers a bookmark; reads go on at the primary", async () => {
    const auth = await token();
    const order = await orderIn(auth, "draft");
    const opened: string[] = [];
    // Another request changes the order between this one's read and its write.
    const DB = {
      withSession(start: D1SessionBookmark | D1SessionConstraint) {
        opened.push(start);
        const session = env.DB.withSession(start);
        return {
          prepare: (query: string) => session.prepare(query),
          async batch(statements: D1PreparedStatement[]) {
            await env.DB.prepare("UPDATE card_orders SET updated_at = ? WHERE id = ?")
              .bind(new Date().toISOString(), order.id)
              .run();
            return session.batch(statements);
          },
          getBookmark: () => session.getBookmark(),
        };
      },
    } as unknown as D1Database;

    const response = await send(
      new Request(BASE + `/card_orders/${order.id}/submit`, {
        method: "POST",
        headers: { Authorization: `Bearer ${auth}` },
      }),
      { DB },
    );
    await expectError(response, 409, { code: "conflict" });
    expect(opened).toStrictEqual(["first-primary", "first-primary"]);
    expect(response.headers.get(BOOKMARK)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/);
  });

  it("opens D1 sessions as documented: reads at a replica or the client's bookmark, writes at primary", async () => {
    const opened: string[] = [];
    const DB = {
      withSession: (start: string) => (opened.push(start), env.DB.withSession(start as never)),
    } as unknown as D1Database;
    const auth = await token();
    const order = await orderIn(auth, "draft");
    const bookmark = "00000000-00000005-00000000-00000000000000000000000000000000";

    const read = await send(
      new Request(BASE + `/card_orders/${order.id}`, { headers: { Authorization: `Bearer ${auth}` } }),
      { DB },
    );
    const readAgain = await send(
      new Request(BASE + `/card_orders/${order.id}`, {
        headers: { Authorization: `Bearer ${auth}`, [BOOKMARK]: bookmark },
      }),
      { DB },
    );
    const write = await send(
      new Request(BASE + `/card_orders/${order.id}/submit`, {
        method: "POST",
        headers: { Authorization: `Bearer ${auth}`, [BOOKMARK]: bookmark },
      }),
      { DB },
    );

    expect([read.status, readAgain.status, write.status]).toStrictEqual([200, 200, 200]);
    expect(opened).toStrictEqual(["first-unconstrained", bookmark, "first-primary"]);
    // Each answer carries the session's own latest bookmark, not the one the client sent.
    for (const response of [read, readAgain, write])
      expect(response.headers.get(BOOKMARK)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/);
  });

  it.each([
    ["with a space", "a b"],
    ["non-ASCII", "bookmärk"],
    ["too long", "0".repeat(257)],
  ])("refuses a bookmark that cannot be one (%s) with 400, without opening a session", async (_, bookmark) => {
    await expectError(await call("/card_orders", { token: await token(), headers: { [BOOKMARK]: bookmark } }), 400, {
      code: "invalid_parameter",
      source: { header: BOOKMARK },
    });
  });

  it("sent back on a read, shows that read the write it came from", async () => {
    const auth = await token();
    const created = await call("/card_orders", {
      token: auth,
      json: { ...newCardOrder, description: "read your writes" },
    });
    expect(created.status).toBe(201);
    const bookmark = created.headers.get(BOOKMARK)!;
    const order = ((await created.json()) as any).data[0];

    const read = await call(`/card_orders/${order.id}`, { token: auth, headers: { [BOOKMARK]: bookmark } });
    await expectJson(read, 200, { data: order });
    expect(read.headers.get(BOOKMARK)).toMatch(/\S/);

    const list = await expectJson(
      await call("/card_orders", { token: auth, headers: { [BOOKMARK]: bookmark } }),
      200,
      expect.anything(),
    );
    expect(list.data).toStrictEqual([order]);

    const cancelled = await call(`/card_orders/${order.id}/cancel`, { method: "POST", token: auth });
    const after = await call(`/card_orders/${order.id}`, {
      token: auth,
      headers: { [BOOKMARK]: cancelled.headers.get(BOOKMARK)! },
    });
    expect(((await after.json()) as any).data.state).toBe("cancelled");
  });
});

describe("CORS", () => {
  const ALLOWED = "https://app.example";
  const vars = { CORS_ALLOWED_ORIGINS: `${ALLOWED}, https://admin.example` };
  const preflight = (origin: string) => ({
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
    },
  });
  const listed = (value: string | null) => (value ?? "").split(",").map((v) => v.trim().toLowerCase());

  it("is off by default: no Access-Control headers, even for a request with an Origin", async () => {
    const response = await call("/card_orders", { token: await token(), headers: { Origin: ALLOWED } });
    expect(response.status).toBe(200);
    expect(accessControlHeaders(response)).toStrictEqual([]);
  });

  it("is off by default: OPTIONS is not answered as a preflight", async () => {
    const response = await send(new Request(BASE + "/card_orders", preflight(ALLOWED)));
    await expectError(response, 405, { code: "method_not_allowed", source: {} });
    expect(accessControlHeaders(response)).toStrictEqual([]);
  });

  it("answers a preflight from an allowed origin with 204, without a token", async () => {
    const response = await send(new Request(BASE + "/card_orders", preflight(ALLOWED)), vars);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe(ALLOWED);
    expect(listed(response.headers.get("Access-Control-Allow-Headers"))).toEqual(
      expect.arrayContaining(["authorization", "content-type", "idempotency-key"]),
    );
    expect(listed(response.headers.get("Access-Control-Allow-Methods"))).toEqual(
      expect.arrayContaining(["get", "post", "put", "delete"]),
    );
    expect(listed(response.headers.get("Vary"))).toContain("origin");
  });

  it("allows each listed origin", async () => {
    const response = await send(
      new Request(BASE + "/voucher_owners/me/notification_tokens", preflight("https://admin.example")),
      vars,
    );
    expect(response.status).toBe(204);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe("https://admin.example");
  });

  it("gives a disallowed origin no Access-Control-Allow-Origin", async () => {
    for (const origin of ["https://evil.example", "https://app.example.evil.example", "http://app.example", "null"]) {
      const response = await send(new Request(BASE + "/card_orders", preflight(origin)), vars);
      expect(response.headers.get("Access-Control-Allow-Origin"), origin).toBeNull();
      const actual = await send(
        new Request(BASE + "/card_orders", { headers: { Origin: origin, Authorization: `Bearer ${await token()}` } }),
        vars,
      );
      expect(actual.headers.get("Access-Control-Allow-Origin"), origin).toBeNull();
    }
  });

  it("lets an allowed origin read the response and its headers, errors included", async () => {
    const ok = await send(
      new Request(BASE + "/card_orders", { headers: { Origin: ALLOWED, Authorization: `Bearer ${await token()}` } }),
      vars,
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe(ALLOWED);
    expect(listed(ok.headers.get("Access-Control-Expose-Headers"))).toEqual(
      expect.arrayContaining(["x-request-id", BOOKMARK]),
    );
    expect(listed(ok.headers.get("Vary"))).toContain("origin");

    const refused = await send(new Request(BASE + "/card_orders", { headers: { Origin: ALLOWED } }), vars);
    await expectError(refused, 401, { code: "unauthorized", source: { header: "Authorization" } });
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBe(ALLOWED);
    expect(listed(refused.headers.get("Access-Control-Expose-Headers"))).toContain("www-authenticate");
  });
});

describe("the request log", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Runs `send` and returns the response with every console line written meanwhile. */
  async function logged(send: () => Promise<Response>) {
    const log = vi.spyOn(console, "log");
    const others = ["error", "warn", "info", "debug"].map((level) => vi.spyOn(console, level as "error"));
    const response = await send();
    const lines = log.mock.calls.map((args) => args.map(String).join(" "));
    const everything = [...log.mock.calls, ...others.flatMap((spy) => spy.mock.calls)]
      .map((args) => args.map(String).join(" "))
      .join("\n");
    vi.restoreAllMocks();
    return { response, lines, everything };
  }

  const FIELDS = [
    "request_id",
    "method",
    "route",
    "status",
    "duration_ms",
    "sub",
    "d1_queries",
    "d1_rows_read",
    "d1_rows_written",
  ];

  it("writes exactly one JSON line per request, with the fields and the response's X-Request-Id", async () => {
    const sub = unique("user");
    const auth = await token({ sub });
    const order = await createCardOrder(auth);

    const { response, lines } = await logged(() => call(`/card_orders/${order.id}`, { token: auth }));
    expect(response.status).toBe(200);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(Object.keys(line)).toEqual(expect.arrayContaining(FIELDS));
    expect(line).toMatchObject({
      request_id: response.headers.get("X-Request-Id"),
      method: "GET",
      route: "/card_orders/:id",
      status: 200,
      sub,
      d1_rows_written: 0,
    });
    expect(line.duration_ms).toBeGreaterThanOrEqual(0);
    expect(line.d1_queries).toBeGreaterThan(0);
    expect(line.d1_rows_read).toBeGreaterThanOrEqual(0);
  });

  it("counts the rows a write wrote", async () => {
    const sub = unique("user");
    const { response, lines } = await logged(async () =>
      call("/card_orders", { token: await token({ sub }), json: newCardOrder }),
    );
    expect(response.status).toBe(201);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ method: "POST", route: "/card_orders", status: 201, sub });
    expect(line.d1_queries).toBeGreaterThan(0);
    expect(line.d1_rows_written).toBeGreaterThan(0);
  });

  it("logs the client's X-Request-Id when it was sane", async () => {
    const { response, lines } = await logged(() => call("/health", { headers: { "X-Request-Id": "client-id-42" } }));
    expect(response.headers.get("X-Request-Id")).toBe("client-id-42");
    expect(JSON.parse(lines[0]!).request_id).toBe("client-id-42");
  });

  it.each([
    ["an unknown route", () => call("/nope"), { method: "GET", route: null, status: 404, sub: null, d1_queries: 0 }],
    [
      "a wrong method",
      () => call("/card_orders", { method: "DELETE" }),
      { method: "DELETE", route: "/card_orders", status: 405, sub: null },
    ],
    [
      "a refused token",
      () => call("/card_orders", { headers: { Authorization: "Bearer x.y.z" } }),
      { route: "/card_orders", status: 401, sub: null, d1_queries: 0 },
    ],
    [
      "the health check",
      () => call("/health"),
      { route: "/health", status: 200, sub: null, d1_queries: 0, d1_rows_read: 0, d1_rows_written: 0 },
    ],
  ])("writes one line for %s too", async (_, send, expected) => {
    const { response, lines } = await logged(send);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(Object.keys(line)).toEqual(expect.arrayContaining(FIELDS));
    expect(line).toMatchObject({ ...expected, request_id: response.headers.get("X-Request-Id") });
  });

  it("never contains the bearer token, a notification token value or a request body", async () => {
    const marker = unique("SECRET");
    const auth = await token({ sub: unique("user") });
    const signature = auth.split(".")[2]!;
    const requests: (() => Promise<Response>)[] = [
      () => call("/card_orders", { token: auth, json: { ...newCardOrder, description: `body-${marker}` } }),
      () =>
        call("/card_orders", { token: auth, json: { ...newCardOrder, cost_center: `invalid-${marker}`.repeat(20) } }),
      () =>
        call("/voucher_owners/me/notification_tokens", {
          method: "PUT",
          token: auth,
          json: { value: `push-${marker}`, device_identifier: `device-${marker}` },
        }),
      () =>
        call("/voucher_owners/me/notification_tokens", {
          method: "PUT",
          token: auth,
          body: `{"value":"push-${marker}"`,
          headers: { "Content-Type": "application/json" },
        }),
      () => call("/card_orders", { headers: { Authorization: `Bearer rejected-${marker}.x.y` } }),
      () => call("/card_orders", { token: auth, headers: { "Idempotency-Key": `key-${marker}` }, json: newCardOrder }),
    ];
    for (const send of requests) {
      const { response, lines, everything } = await logged(send);
      expect(response.status).toBeLessThan(500);
      expect(lines).toHaveLength(1);
      expect(everything).not.toContain(marker);
      expect(everything).not.toContain(auth);
      expect(everything).not.toContain(signature);
    }
  });
});

describe("documentation and health", () => {
  // Every route of the route table (src/app.ts), with the scope its spec requires (null: public).
  const ROUTE_SCOPES: [method: string, path: string, scope: string | null][] = ROUTES.map((spec) => [
    spec.method,
    spec.path,
    spec.access?.scope ?? null,
  ]);

  // docs/api.md part 5's table restated: the scope the interface promises each route it lists. Kept
  // because the specs cannot check it: the OpenAPI document is built from them, so held against them
  // alone it passes whatever scope a spec names. This catches a spec that changed a promised scope or
  // dropped a listed route; a route added to the table is checked against its spec without an entry.
  const CONTRACT: [method: string, path: string, scope: string | null][] = [
    ["post", "/card_orders", "card_orders:write"],
    ["get", "/card_orders", "card_orders:read"],
    ["get", "/card_orders/{id}", "card_orders:read"],
    ["post", "/card_orders/{id}/submit", "card_orders:write"],
    ["post", "/card_orders/{id}/cancel", "card_orders:write"],
    ["post", "/card_orders/{id}/start_production", "fulfilment"],
    ["post", "/card_orders/{id}/deliver", "fulfilment"],
    ["post", "/invoices", "invoices:write"],
    ["get", "/invoices", "invoices:read"],
    ["get", "/invoices/{id}", "invoices:read"],
    ["get", "/invoices/{id}/lines", "invoices:read"],
    ["get", "/invoices/{id}/document", "invoices:read"],
    ["get", "/invoices/{id}/credit_note", "invoices:read"],
    ["put", "/customers/me/billing_profile", "invoices:write"],
    ["get", "/customers/me/billing_profile", "invoices:read"],
    ["post", "/invoices/{id}/pay", "fulfilment"],
    ["post", "/invoices/{id}/cancel", "fulfilment"],
    ["put", "/voucher_owners/me/notification_tokens", "notification_tokens:write"],
    ["get", "/voucher_owners/me/notification_tokens", "notification_tokens:write"],
    ["delete", "/voucher_owners/me/notification_tokens/{device_identifier}", "notification_tokens:write"],
    ["post", "/card_orders/{id}/entries", "card_orders:write"],
    ["get", "/card_orders/{id}/entries", "card_orders:read"],
    ["delete", "/card_orders/{id}/entries/{entry_id}", "card_orders:write"],
    ["get", "/events", "events:read"],
    ["post", "/webhook_endpoints", "webhooks:write"],
    ["get", "/webhook_endpoints", "webhooks:write"],
    ["delete", "/webhook_endpoints/{id}", "webhooks:write"],
    ["get", "/openapi.json", null],
    ["get", "/docs", null],
    ["get", "/health", null],
  ];
  const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

  async function openApi(): Promise<any> {
    const response = await call("/openapi.json");
    return expectJson(response, 200, expect.objectContaining({ openapi: expect.stringMatching(/^3\.1\.\d+$/) }));
  }

  /** Follows a local `$ref` (RFC 6901 pointer into the document). */
  function resolve(doc: any, schema: any): any {
    if (!schema?.$ref) return schema;
    const path = String(schema.$ref)
      .replace(/^#\//, "")
      .split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    return resolve(
      doc,
      path.reduce((node, key) => node?.[key], doc),
    );
  }

  it("serves an OpenAPI 3.1 document with exactly the routes of the route table, those of docs/api.md part 5 among them", async () => {
    const doc = await openApi();
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((key) => HTTP_METHODS.includes(key))
          .map((method) => `${method} ${path}`),
      )
      .sort();
    expect(documented).toStrictEqual(ROUTE_SCOPES.map(([method, path]) => `${method} ${path}`).sort());
    const unlisted = CONTRACT.map(([method, path]) => `${method} ${path}`).filter(
      (route) => !documented.includes(route),
    );
    expect(unlisted, "routes of docs/api.md part 5 missing").toStrictEqual([]);
  });

  it("declares bearer authentication and the scope of each secured operation", async () => {
    const doc = await openApi();
    const schemes = Object.entries(doc.components.securitySchemes as Record<string, any>).filter(
      ([, s]) => s.type === "http" && s.scheme === "bearer",
    );
    expect(schemes).toHaveLength(1);
    const [name] = schemes[0]!;
    const scopeOf = new Map(ROUTE_SCOPES.map(([method, path, scope]) => [`${method} ${path}`, scope]));
    expect(
      CONTRACT.map(([method, path]) => [method, path, scopeOf.get(`${method} ${path}`)]),
      "the scopes of docs/api.md part 5",
    ).toStrictEqual(CONTRACT);
    for (const [method, path, scope] of ROUTE_SCOPES) {
      const operation = doc.paths[path][method];
      // A route the back office reads across customers (docs/api.md part 18) names its scope as the alternative.
      const across = ROUTES.find((spec) => spec.method === method && spec.path === path)?.access?.acrossCustomers;
      const alternatives = [scope, ...(across ? [across] : [])].map((s) => ({ [name]: [s] }));
      if (scope) expect(operation.security, `${method} ${path}`).toStrictEqual(alternatives);
      else expect(operation.security ?? [], `${method} ${path}`).toStrictEqual([]);
    }
  });

  it("describes the request bodies", async () => {
    const doc = await openApi();
    const bodyOf = (method: string, path: string) =>
      resolve(doc, doc.paths[path][method].requestBody?.content?.["application/json"]?.schema);

    const createOrder = bodyOf("post", "/card_orders");
    expect(createOrder.type).toBe("object");
    expect(createOrder.properties.voucher_category.enum).toStrictEqual(["mixed", "meal", "gift"]);
    expect(createOrder.properties.payment_method.enum).toStrictEqual(["bank_transfer", "direct_debit"]);
    expect([...createOrder.required].sort()).toStrictEqual(["payment_method", "voucher_category"]);
    expect(againstInterface(Object.keys(createOrder.properties), REQUEST_FIELDS["post /card_orders"])).toStrictEqual({
      interface: REQUEST_FIELDS["post /card_orders"],
      undocumented: [],
    });
    expect(createOrder.additionalProperties).toBe(false);

    const createInvoice = bodyOf("post", "/invoices");
    expect(createInvoice.required).toStrictEqual(["order_id"]);
    expect(againstInterface(Object.keys(createInvoice.properties), REQUEST_FIELDS["post /invoices"])).toStrictEqual({
      interface: REQUEST_FIELDS["post /invoices"],
      undocumented: [],
    });

    const addEntry = bodyOf("post", "/card_orders/{id}/entries");
    expect(
      againstInterface(Object.keys(addEntry.properties), REQUEST_FIELDS["post /card_orders/{id}/entries"]),
    ).toStrictEqual({
      interface: REQUEST_FIELDS["post /card_orders/{id}/entries"],
      undocumented: [],
    });
    expect([...addEntry.required].sort()).toStrictEqual(["amount", "card_holder_name", "voucher_owner_id"]);
    expect(addEntry.properties.amount).toMatchObject({ type: "string", pattern: expect.any(String) });
    expect(addEntry.properties.card_holder_name).toMatchObject({ type: "string", minLength: 1, maxLength: 26 });

    const profile = bodyOf("put", "/customers/me/billing_profile");
    expect(profile.additionalProperties).toBe(false);
    expect([...profile.required].sort()).toStrictEqual([
      "city",
      "country_code",
      "email",
      "legal_name",
      "postcode",
      "street",
    ]);
    expect(profile.properties.postcode).toMatchObject({ type: "string", minLength: 1, maxLength: 16 });

    const registerToken = bodyOf("put", "/voucher_owners/me/notification_tokens");
    expect([...registerToken.required].sort()).toStrictEqual(["device_identifier", "value"]);
    expect(registerToken.properties.value).toMatchObject({ type: "string", minLength: 1, maxLength: 4096 });
    expect(registerToken.properties.device_identifier).toMatchObject({ type: "string", minLength: 1, maxLength: 255 });

    // A body documented exactly where the route reads one: JSON, or a file (an upload).
    for (const spec of ROUTES) {
      const takesBody = spec.body !== NO_BODY || ("upload" in spec && spec.upload !== undefined);
      expect(doc.paths[spec.path][spec.method].requestBody !== undefined, routeName(spec)).toBe(takesBody);
    }
  });

  it("documents the error responses with the error envelope", async () => {
    const doc = await openApi();
    const envelope = (response: any) => resolve(doc, response?.content?.["application/json"]?.schema);
    for (const [method, path, scope] of ROUTE_SCOPES) {
      const responses = doc.paths[path][method].responses as Record<string, any>;
      const errorStatuses = Object.keys(responses).filter((status) => Number(status) >= 400);
      const expected = ["500"];
      if (scope) expected.push("401", "403");
      if (path.includes("{")) expected.push("404");
      if (doc.paths[path][method].requestBody) expected.push("400", "413", "415", "422");
      expect(errorStatuses, `${method} ${path}`).toEqual(expect.arrayContaining(expected));
      for (const status of errorStatuses) {
        const schema = envelope(responses[status]);
        expect(schema?.properties?.errors?.type, `${method} ${path} ${status}`).toBe("array");
        expect(Object.keys(resolve(doc, schema.properties.errors.items).properties).sort()).toStrictEqual([
          "code",
          "detail",
          "source",
        ]);
      }
    }
  });

  it("lists every error code of docs/api.md part 3 in the envelope", async () => {
    const doc = await openApi();
    const responses = doc.paths["/card_orders"].post.responses;
    const item = resolve(
      doc,
      resolve(doc, responses["400"].content["application/json"].schema).properties.errors.items,
    );
    expect([...resolve(doc, item.properties.code).enum].sort()).toStrictEqual(
      [
        "invalid_json",
        "invalid_parameter",
        "unauthorized",
        "forbidden",
        "not_found",
        "method_not_allowed",
        "invalid_state",
        "conflict",
        "payload_too_large",
        "unsupported_media_type",
        "validation_failed",
        "idempotency_key_reused",
        "invalid_document",
        "rate_limited",
        "internal_error",
        "unavailable",
      ].sort(),
    );
  });

  it("serves /docs as HTML without a token", async () => {
    const response = await call("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^text\/html\b/);
    expect(await response.text()).toContain("/openapi.json");
  });

  it("answers /health with {status: ok} without a token", async () => {
    await expectJson(await call("/health"), 200, { status: "ok" });
  });
});
