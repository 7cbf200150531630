import { env } from "cloudflare:workers";
import fc from "fast-check";
import { sign } from "hono/jwt";
import { beforeAll, describe, expect, it } from "vitest";
import {
  addEntry,
  ALL_SCOPES,
  BASE,
  call,
  createCardOrder,
  createInvoice,
  JSON_TYPE,
  orderIn,
  send,
  token,
  unique,
} from "./support/api";
import { routeOf } from "./support/shape";
import { cardOrderLifecycle } from "../src/domain/card-orders";
import { invoiceLifecycle } from "../src/domain/invoices";

// Generated requests against every endpoint of docs/api.md part 5 with every method: whatever a client
// sends, the answer is never a 5xx and always one of the envelopes of docs/api.md parts 3 and 4. Then
// generated text through every stored string field: it comes back exactly, or is refused, never altered.

const RUNS = 100;
const PROPERTY_TIMEOUT_MS = 90_000;

// docs/api.md part 3: every code and its status.
const ERROR_STATUS: Record<string, number> = {
  invalid_json: 400,
  invalid_parameter: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
};

// The caller's customer, with one resource of each kind, so that generated requests reach handlers.
const CUSTOMER = unique("customer");
const fixture = { order: "", entry: "", invoice: "", device: "phone" };
const caller = (claims: Record<string, unknown> = {}) =>
  token({ sub: unique("prop"), customer_id: CUSTOMER, ...claims });

beforeAll(async () => {
  const auth = await caller();
  fixture.order = (await createCardOrder(auth)).id;
  fixture.entry = (await addEntry(auth, fixture.order)).id;
  fixture.invoice = (await createInvoice(auth, (await orderIn(auth, "submitted")).id)).id;
  const put = await call("/voucher_owners/me/notification_tokens", {
    token: auth,
    method: "PUT",
    json: { value: unique("value"), device_identifier: fixture.device },
  });
  expect(put.status).toBe(204);
});

// ---------------------------------------------------------------------------------------------
// What every answer must look like
// ---------------------------------------------------------------------------------------------

const keysOf = (value: unknown) =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? Object.keys(value) : undefined;

function expectErrorEnvelope(status: number, body: unknown, headers: Headers) {
  expect(keysOf(body), "an error body holds only errors").toStrictEqual(["errors"]);
  const { errors } = body as { errors: unknown[] };
  expect(Array.isArray(errors) && errors.length > 0, "errors is a non-empty array").toBe(true);
  for (const item of errors) {
    expect(keysOf(item), "each error is exactly detail, code, source").toStrictEqual(["detail", "code", "source"]);
    const { detail, code, source } = item as { detail: unknown; code: string; source: unknown };
    expect(detail).toEqual(expect.stringMatching(/\S/));
    expect(Object.keys(ERROR_STATUS), "a code of docs/api.md part 3").toContain(code);
    expect(ERROR_STATUS[code], `the status of ${code}`).toBe(status);
    const sourceKeys = keysOf(source);
    expect(
      sourceKeys?.length === 0 ||
        (sourceKeys?.length === 1 && ["pointer", "parameter", "header"].includes(sourceKeys[0]!)),
      `source ${JSON.stringify(source)}`,
    ).toBe(true);
    for (const value of Object.values(source as object)) expect(typeof value).toBe("string");
    if (sourceKeys?.[0] === "pointer") expect((source as { pointer: string }).pointer).toMatch(/^(\/([^~/]|~[01])*)+$/);
  }
  if (status === 401) expect(headers.get("WWW-Authenticate")).toMatch(/^Bearer\b/);
  if (status === 405) expect(headers.get("Allow")).toMatch(/^[A-Z]+(, [A-Z]+)*$/);
  if (status === 429 || status === 503) expect(headers.get("Retry-After")).toMatch(/^\d+$/);
}

/**
 * A success: its shape was held against its route's schema by `send` (support/shape.ts); here,
 * what the schema cannot say: a POST produced a single page, and only the caller's customer shows.
 */
function expectSuccess(status: number, body: unknown) {
  const { meta, data } = body as { meta?: unknown; data?: unknown };
  if (status === 201) expect(meta).toStrictEqual({ total_pages: 1, current_page: 1, page_size: 1, total_entries: 1 });
  for (const item of [data].flat()) {
    if (item !== null && typeof item === "object" && "customer" in item)
      expect(item.customer, "only the caller's customer's orders").toBe(CUSTOMER);
  }
}

/** Sends the request and checks the answer against the envelopes of docs/api.md parts 3 and 4. */
async function expectWellFormedAnswer(request: Request) {
  const response = await send(request);
  const { status, headers } = response;
  const text = await response.text();
  const context = `${request.method} ${request.url.slice(0, 300)} -> ${status} ${text.slice(0, 300)}`;
  expect(status, context).toBeGreaterThanOrEqual(200);
  expect(status, context).toBeLessThan(500);
  // Every answer is traceable, and a request id is echoed only when it is a plain token.
  const sentId = request.headers.get("X-Request-Id");
  expect(headers.get("X-Request-Id"), context).toMatch(/^[\x21-\x7e]{1,128}$/);
  if (sentId !== null && /^[0-9a-f-]{36}$/.test(sentId)) expect(headers.get("X-Request-Id"), context).toBe(sentId);
  expect(headers.get("X-Content-Type-Options"), context).toBe("nosniff");
  if (request.method === "HEAD" || status === 204) {
    expect(text, context).toBe("");
    return;
  }

  const route = routeOf(request.method, new URL(request.url).pathname);
  if (route?.success.mediaType && status === 200) {
    expect(headers.get("Content-Type"), context).toMatch(/^text\/html/);
    return;
  }
  expect(headers.get("Content-Type"), context).toBe(JSON_TYPE);
  let body: unknown;
  expect(() => (body = JSON.parse(text)), context).not.toThrow();
  try {
    if (status >= 400) expectErrorEnvelope(status, body, headers);
    else {
      expect(route, `a ${status} answer on an unknown path`).toBeDefined();
      expectSuccess(status, body);
    }
  } catch (error) {
    throw new Error(`${context}\n${(error as Error).message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

// docs/api.md part 5; `{id}` is the fixture's resource unless a generator puts something else there.
const TEMPLATES = [
  "/card_orders",
  "/card_orders/{order}",
  "/card_orders/{order}/submit",
  "/card_orders/{order}/cancel",
  "/card_orders/{order}/start_production",
  "/card_orders/{order}/deliver",
  "/card_orders/{order}/entries",
  "/card_orders/{order}/entries/{entry}",
  "/invoices",
  "/invoices/{invoice}",
  "/invoices/{invoice}/pay",
  "/invoices/{invoice}/cancel",
  "/voucher_owners/me/notification_tokens",
  "/voucher_owners/me/notification_tokens/{device}",
  "/openapi.json",
  "/docs",
  "/health",
] as const;

const BODY_FIELDS = [
  "voucher_category",
  "description",
  "invoice_reference",
  "cost_center",
  "payment_method",
  "order_id",
  "reference",
  "value",
  "device_identifier",
  "voucher_owner_id",
  "card_holder_name",
  "amount",
];

const SQL_TEXT = [
  "' OR '1'='1",
  "1; DROP TABLE card_orders; --",
  '" OR ""="',
  "%' --",
  "'); DELETE FROM invoices; --",
  "NULL",
  "0x00",
  "' UNION SELECT * FROM idempotency_keys --",
];

/** Header values a client can send: visible ASCII, space and tab. */
const headerText = (maxLength = 80) =>
  fc.string({
    unit: fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      fc.constant("\t"),
    ),
    maxLength,
  });

const anyJson = fc.jsonValue({ maxDepth: 6 });

/** A value for a body field: right, wrong type, too long, odd. */
const fieldValue = fc.oneof(
  fc.constantFrom("mixed", "meal", "gift", "bank_transfer", "direct_debit", "platinum", "", "MIXED"),
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.integer({ min: 250, max: 4200 }).map((n) => "é".repeat(n)),
  fc.constantFrom(...SQL_TEXT),
  fc.uuid(),
);

const fieldObject = fc
  .tuple(
    fc.subarray(BODY_FIELDS),
    fc.array(fieldValue, { minLength: BODY_FIELDS.length, maxLength: BODY_FIELDS.length }),
    fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 2 }),
  )
  .map(([fields, values, extra]) => ({
    ...Object.fromEntries(fields.map((field, i) => [field, values[i]])),
    ...extra,
  }));

const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 300 }), fc.constantFrom("[", '{"a":'), fc.boolean())
  .map(([depth, open, inField]) => {
    const nested = open.repeat(depth) + (open === "[" ? "]" : "1}").repeat(depth);
    return inField ? `{"description":${nested}}` : nested;
  });

const hugeBody = fc
  .integer({ min: 60_000, max: 70_000 })
  .map((n) =>
    JSON.stringify({ voucher_category: "mixed", payment_method: "bank_transfer", description: "x".repeat(n) }),
  );

/** A body that is JSON, of every shape, and (mostly) sent as JSON. */
const jsonBodies = fc.oneof(
  anyJson.map((value) => JSON.stringify(value)),
  { weight: 3, arbitrary: fieldObject.map((value) => JSON.stringify(value)) },
  deepNesting,
  hugeBody,
);

/** A body that is not JSON (or barely): arbitrary bytes and text. */
const rawBodies = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({ maxLength: 200 }),
  fc.constantFrom(
    "",
    " ",
    "{",
    "}",
    "[",
    '{"a":',
    '{"voucher_category":"mixed",}',
    "\uFEFF{}",
    "nul",
    "{'a':1}",
    "NaN",
    '{"a":1}{}',
    '"\\ud800"',
  ),
  fc
    .uint8Array({ minLength: 1, maxLength: 8 })
    .map(
      (tail) =>
        new Uint8Array([...new TextEncoder().encode('{"description":"'), ...tail, ...new TextEncoder().encode('"}')]),
    ),
);

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json;charset=UTF-8",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "",
  "application/jsonx",
  "APPLICATION/JSON",
  "multipart/form-data; boundary=x",
];

/** The body and its Content-Type, by a generator of bodies. */
const bodyWith = (bodies: fc.Arbitrary<string | Uint8Array>) =>
  fc.option(
    fc.record({
      body: bodies,
      contentType: fc.oneof(
        { weight: 8, arbitrary: fc.constant("application/json") },
        fc.constantFrom(...CONTENT_TYPES),
        headerText(40),
      ),
    }),
    { freq: 5 },
  );

/** A valid body for the route, or none: what a well-behaved client sends. */
function sensibleBody(template: string): string | undefined {
  if (template === "/card_orders")
    return JSON.stringify({ voucher_category: "gift", payment_method: "direct_debit", description: "p" });
  if (template === "/invoices") return JSON.stringify({ order_id: fixture.order, reference: "r" });
  if (template === "/card_orders/{order}/entries")
    return JSON.stringify({ voucher_owner_id: "owner-p", card_holder_name: "Prop Erty", amount: "12.00" });
  if (template === "/voucher_owners/me/notification_tokens")
    return JSON.stringify({ value: unique("value"), device_identifier: unique("device") });
  return undefined;
}

const expiredToken = () =>
  sign(
    { sub: unique("prop"), customer_id: CUSTOMER, scope: ALL_SCOPES, exp: Math.floor(Date.now() / 1000) - 60 },
    "test-secret",
    "HS256",
  );

/** Authorization: mostly a good token (so requests get past it), otherwise every way of being wrong. */
const authorizations = fc.oneof(
  { weight: 6, arbitrary: fc.constant(async () => `Bearer ${await caller()}`) },
  fc.constantFrom(
    async () => `Bearer ${await caller({ scope: "card_orders:read invoices:read" })}`,
    async () => `Bearer ${await caller({ scope: undefined })}`,
    async () => `Bearer ${await token({ sub: unique("prop"), customer_id: undefined })}`,
    async () => `Bearer ${await expiredToken()}`,
    async () =>
      `Bearer ${await sign(
        { sub: unique("prop"), customer_id: CUSTOMER, scope: ALL_SCOPES, exp: 9e9 },
        "wrong-secret",
        "HS256",
      )}`,
    async () =>
      `Bearer ${btoa('{"alg":"none","typ":"JWT"}')}.${btoa(`{"sub":"x","exp":9999999999,"scope":"${ALL_SCOPES}"}`)}.`,
    async () => undefined,
  ),
  headerText(200).map((garbage) => async () => garbage),
  headerText(200).map((garbage) => async () => `Bearer ${garbage}`),
  fc
    .tuple(fc.base64String({ maxLength: 40 }), fc.base64String({ maxLength: 40 }), fc.base64String({ maxLength: 40 }))
    .map((parts) => async () => `Bearer ${parts.join(".")}`),
);

/** What goes where `{id}` is: real ids, near misses, SQL, emoji, slashes, percent-encodings, length. */
const segments = fc.oneof(
  fc.constantFrom(...SQL_TEXT),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
  fc.string({ unit: "binary", minLength: 1, maxLength: 20 }),
  fc.string({
    unit: fc.constantFrom(
      "/",
      ".",
      "..",
      "%",
      "%2F",
      "%2f",
      "%00",
      "%zz",
      "%E2%82",
      "%F0%9F%98%80",
      "%25",
      "\\",
      "?",
      "#",
      ";",
      "a",
      "😀",
    ),
    minLength: 1,
    maxLength: 12,
  }),
  fc.integer({ min: 256, max: 10_000 }).map((n) => "a".repeat(n)),
  fc.uuid(),
  fc.constantFrom("real-upper", "real-suffix", "real-prefix", "me", "null", "undefined", "0", "-1"),
);

type Encoding = "raw" | "encoded" | "double";
const encode = (text: string, how: Encoding) =>
  how === "raw" ? text : how === "encoded" ? encodeURIComponent(text) : encodeURIComponent(encodeURIComponent(text));

const QUERY_KEYS = ["page", "page_size", "state", "order_id"];
const queryValues = fc.oneof(
  fc.integer({ min: -5, max: 200 }).map(String),
  fc.constantFrom(
    "",
    "0",
    "1",
    "100",
    "101",
    "1.5",
    "1e2",
    " 1",
    "0x10",
    "+1",
    "01",
    "2147483647",
    "2147483648",
    "99999999999",
    "NaN",
    "Infinity",
  ),
  fc.constantFrom(...cardOrderLifecycle.states, ...invoiceLifecycle.states, "DRAFT", "shipped"),
  fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "grapheme", maxLength: 10 }),
  fc.constantFrom(...SQL_TEXT),
);
const queryStrings = fc
  .array(
    fc.tuple(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...QUERY_KEYS) },
        fc.string({ maxLength: 10 }),
        fc.constantFrom("page[]", "%", "&", "=", "page%5B%5D"),
      ),
      fc.option(queryValues),
      fc.constantFrom<Encoding>("raw", "encoded", "encoded"),
    ),
    { maxLength: 5 },
  )
  .map((pairs) =>
    pairs
      .map(([key, value, how]) => (value === null ? encode(key, how) : `${encode(key, how)}=${encode(value, how)}`))
      .join("&"),
  );

type Endpoint = readonly [(typeof METHODS)[number], (typeof TEMPLATES)[number]];

// docs/api.md part 5: the method each path answers to. Generated requests mostly use these (a wrong
// method stops at 405 before anything else is looked at), and otherwise any method on any path.
const ENDPOINTS: Endpoint[] = [
  ["POST", "/card_orders"],
  ["GET", "/card_orders"],
  ["GET", "/card_orders/{order}"],
  ["POST", "/card_orders/{order}/submit"],
  ["POST", "/card_orders/{order}/cancel"],
  ["POST", "/card_orders/{order}/start_production"],
  ["POST", "/card_orders/{order}/deliver"],
  ["POST", "/card_orders/{order}/entries"],
  ["GET", "/card_orders/{order}/entries"],
  ["DELETE", "/card_orders/{order}/entries/{entry}"],
  ["POST", "/invoices"],
  ["GET", "/invoices"],
  ["GET", "/invoices/{invoice}"],
  ["POST", "/invoices/{invoice}/pay"],
  ["POST", "/invoices/{invoice}/cancel"],
  ["PUT", "/voucher_owners/me/notification_tokens"],
  ["GET", "/voucher_owners/me/notification_tokens"],
  ["DELETE", "/voucher_owners/me/notification_tokens/{device}"],
  ["GET", "/openapi.json"],
  ["GET", "/docs"],
  ["GET", "/health"],
];
const TAKES_BODY = ENDPOINTS.filter(
  ([method, template]) =>
    method === "PUT" || ["/card_orders", "/invoices", "/card_orders/{order}/entries"].includes(template),
).filter(([m]) => m !== "GET" && m !== "DELETE");
const TAKES_QUERY = ENDPOINTS.filter(([method]) => method === "GET");
const TAKES_ID = ENDPOINTS.filter(([, template]) => template.includes("{"));

const endpoints = (
  focus: Endpoint[] = ENDPOINTS,
  templates: readonly (typeof TEMPLATES)[number][] = TEMPLATES,
): fc.Arbitrary<Endpoint> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...focus) },
    { weight: 1, arbitrary: fc.constantFrom(...ENDPOINTS) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...METHODS), fc.constantFrom(...templates)) },
  );

interface Generated {
  endpoint: Endpoint;
  segment?: { text: string; encoding: Encoding };
  query?: string;
  headers?: {
    contentType?: string;
    idempotencyKey?: string;
    authorization?: () => Promise<string | undefined>;
    requestId?: string;
  };
  body?: { body: string | Uint8Array; contentType: string } | null;
}

const IDS = {
  "{order}": () => fixture.order,
  "{entry}": () => fixture.entry,
  "{invoice}": () => fixture.invoice,
  "{device}": () => fixture.device,
};

function pathOf(template: string, segment?: Generated["segment"]): string {
  return template.replace(/\{(order|entry|invoice|device)\}/g, (placeholder) => {
    const real = IDS[placeholder as keyof typeof IDS]();
    if (!segment) return real;
    const special: Record<string, string> = {
      "real-upper": real.toUpperCase(),
      "real-suffix": `${real}x`,
      "real-prefix": `x${real}`,
    };
    return special[segment.text] ?? encode(segment.text, segment.encoding);
  });
}

/** Builds the request a generated case describes; anything not generated is what a good client sends. */
async function requestOf(generated: Generated): Promise<Request> {
  const {
    endpoint: [method, template],
    segment,
    query,
    headers = {},
    body,
  } = generated;
  const url = `${BASE}${pathOf(template, segment)}${query === undefined || query === "" ? "" : `?${query}`}`;
  const sent = new Headers();
  const authorization = await (headers.authorization ?? (async () => `Bearer ${await caller()}`))();
  if (authorization !== undefined) sent.set("Authorization", authorization);
  if (headers.idempotencyKey !== undefined) sent.set("Idempotency-Key", headers.idempotencyKey);
  if (headers.requestId !== undefined) sent.set("X-Request-Id", headers.requestId);

  let payload: string | Uint8Array | undefined;
  let contentType: string | undefined;
  if (body === undefined) {
    payload = sensibleBody(template);
    if (payload !== undefined) contentType = "application/json";
  } else if (body !== null) {
    payload = body.body;
    contentType = body.contentType;
  }
  if (headers.contentType !== undefined) contentType = headers.contentType;
  if (contentType !== undefined) sent.set("Content-Type", contentType);
  // GET and HEAD cannot carry a body in fetch; everything else may.
  const withBody = method !== "GET" && method !== "HEAD" && payload !== undefined;
  return new Request(url, { method, headers: sent, body: withBody ? payload : undefined });
}

const robustness = (name: string, generated: fc.Arbitrary<Generated>) =>
  it(
    name,
    async () => {
      await fc.assert(
        fc.asyncProperty(generated, async (generatedCase) => {
          await expectWellFormedAnswer(await requestOf(generatedCase));
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

describe("whatever a client sends to any endpoint with any method: never a 5xx, always a documented envelope", () => {
  robustness(
    "generated JSON bodies: any value, wrong types per field, extra fields, deep nesting, huge strings",
    fc.record({ endpoint: endpoints(TAKES_BODY), body: bodyWith(jsonBodies) }),
  );

  robustness(
    "generated raw bodies: bytes, broken JSON, invalid UTF-8",
    fc.record({ endpoint: endpoints(TAKES_BODY), body: bodyWith(rawBodies) }),
  );

  robustness(
    "generated query strings: page, page_size, state, order_id and unknown parameters with odd characters",
    fc.record({ endpoint: endpoints(TAKES_QUERY), query: queryStrings }),
  );

  robustness(
    "generated header values: Content-Type, Idempotency-Key, Authorization, X-Request-Id",
    fc.record(
      {
        endpoint: endpoints(),
        headers: fc.record(
          {
            contentType: fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerText(60)),
            idempotencyKey: fc.oneof(
              headerText(300),
              fc.string({
                unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
                minLength: 1,
                maxLength: 256,
              }),
            ),
            authorization: authorizations,
            requestId: fc.oneof(headerText(200), fc.uuid()),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ["endpoint", "headers"] },
    ),
  );

  robustness(
    "generated path segments: SQL, emoji, slashes, percent-encodings, near-miss and very long ids",
    fc.record({
      endpoint: endpoints(
        TAKES_ID,
        TEMPLATES.filter((t) => t.includes("{")),
      ),
      segment: fc.record({ text: segments, encoding: fc.constantFrom<Encoding>("raw", "encoded", "double") }),
    }),
  );

  robustness(
    "everything generated at once",
    fc.record(
      {
        endpoint: endpoints(),
        segment: fc.record({ text: segments, encoding: fc.constantFrom<Encoding>("raw", "encoded", "double") }),
        query: queryStrings,
        headers: fc.record(
          {
            contentType: fc.constantFrom(...CONTENT_TYPES),
            idempotencyKey: headerText(40),
            authorization: authorizations,
            requestId: headerText(40),
          },
          { requiredKeys: [] },
        ),
        body: bodyWith(fc.oneof(jsonBodies, rawBodies)),
      },
      { requiredKeys: ["endpoint"] },
    ),
  );
});

// ---------------------------------------------------------------------------------------------
// Round trips of text
// ---------------------------------------------------------------------------------------------

const codePoints = (text: string) => [...text].length;
const utf8Hex = (text: string) =>
  [...new TextEncoder().encode(text)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();

const controlCharacter = fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c));

/** Text of every kind the API must keep exactly (all well-formed Unicode). */
const textPiece = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom(
      "😀",
      "🧾",
      "👩‍👩‍👧",
      "🇩🇪",
      "\u200d",
      "\ufe0f",
      "\u0301",
      "\ufeff",
      "\u2028",
      "\ufffd",
      "\u{10ffff}",
    ),
    maxLength: 20,
  }),
  fc.constantFrom(...SQL_TEXT),
  fc.string({
    unit: fc.constantFrom("'", '"', "\\", "`", ";", "--", "/*", "%", "_", "\\u0000", "\\n", "$1", "?"),
    maxLength: 20,
  }),
  fc.string({ unit: controlCharacter, maxLength: 10 }),
  fc.string({ unit: "binary-ascii", maxLength: 30 }),
);
const storedText = (max: number, min = 0) =>
  fc
    .array(textPiece, { maxLength: 4 })
    .map((pieces) => pieces.join(""))
    .filter((text) => codePoints(text) >= min && codePoints(text) <= max);

// docs/api.md part 14: customer text that can reach an e-invoice (an order's description,
// invoice_reference and cost_center, an invoice's reference, an entry's voucher_owner_id) refuses the
// characters XML 1.0 cannot carry: U+0000-U+0008, U+000B, U+000C, U+000E-U+001F, U+FFFE, U+FFFF and
// lone surrogates. Tab, line feed and carriage return stay, as does everything else.
// XML 1.0's Char production, negated.
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const isCarriable = (text: string) => text.match(NOT_XML) === null;

/** As storedText, but only what an e-invoice can carry (the rest taken out of the generated text). */
const carriableText = (max: number, min = 0) =>
  fc
    .array(textPiece, { maxLength: 4 })
    .map((pieces) => pieces.join("").replace(NOT_XML, ""))
    .filter((text) => codePoints(text) >= min && codePoints(text) <= max);

/** One character XML 1.0 cannot carry (lone surrogates: the unpaired-surrogate property below). */
const notXmlCharacter = fc
  .oneof(
    fc.integer({ min: 0x00, max: 0x08 }),
    fc.constantFrom(0x0b, 0x0c, 0xfffe, 0xffff),
    fc.integer({ min: 0x0e, max: 0x1f }),
  )
  .map((code) => String.fromCharCode(code));

/** Identifiers a URL path cannot carry as a segment of their own. */
const UNNAMEABLE = [".", ".."];
const URL_SPECIAL = [
  ...UNNAMEABLE,
  "...",
  "%2e%2e",
  ".%2e",
  "a/b",
  "/",
  "?x",
  "#",
  " ",
  "%",
  "%25",
  "+",
  "\\",
  ";",
  "a\u0000b",
];

const storedTextCheck = async (query: string, id: string, expected: Record<string, string | null>) => {
  const columns = Object.keys(expected);
  const row = await env.DB.prepare(
    `SELECT ${columns.map((c) => `${c}, hex(${c}) AS ${c}_hex`).join(", ")} FROM ${query}`,
  )
    .bind(id)
    .first<Record<string, string | null>>();
  expect(row).not.toBeNull();
  for (const column of columns) {
    expect(row![column], `stored ${column}`).toBe(expected[column]);
    expect(row![`${column}_hex`], `stored bytes of ${column}`).toBe(
      expected[column] === null ? null : utf8Hex(expected[column]!),
    );
  }
};

describe("text round trips: stored and answered byte for byte", () => {
  it(
    "POST /card_orders keeps description, invoice_reference and cost_center exactly",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          // At least one character: "" is refused (docs/api.md part 5), null stands for none.
          fc.record({
            description: carriableText(255, 1),
            invoice_reference: carriableText(255, 1),
            cost_center: carriableText(255, 1),
          }),
          async (fields) => {
            const auth = await caller();
            const response = await call("/card_orders", {
              token: auth,
              json: { voucher_category: "meal", payment_method: "bank_transfer", ...fields },
            });
            expect(response.status).toBe(201);
            const created = ((await response.json()) as { data: Record<string, unknown>[] }).data[0]!;
            expect({
              description: created.description,
              invoice_reference: created.invoice_reference,
              cost_center: created.cost_center,
            }).toStrictEqual({ ...fields });
            const read = (
              (await (await call(`/card_orders/${created.id}`, { token: auth })).json()) as {
                data: Record<string, unknown>;
              }
            ).data;
            expect({
              description: read.description,
              invoice_reference: read.invoice_reference,
              cost_center: read.cost_center,
            }).toStrictEqual({ ...fields });
            await storedTextCheck("card_orders WHERE id = ?", created.id as string, fields);
          },
        ),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "POST /invoices keeps reference exactly (and the order's cost_center it copies)",
    async () => {
      await fc.assert(
        fc.asyncProperty(carriableText(255, 1), carriableText(255, 1), async (reference, costCenter) => {
          const auth = await caller();
          const order = await orderIn(auth, "submitted", {
            order: { voucher_category: "mixed", payment_method: "bank_transfer", cost_center: costCenter },
          });
          const response = await call("/invoices", { token: auth, json: { order_id: order.id, reference } });
          expect(response.status).toBe(201);
          const created = ((await response.json()) as { data: Record<string, unknown>[] }).data[0]!;
          expect([created.reference, created.cost_center]).toStrictEqual([reference, costCenter]);
          const read = (
            (await (await call(`/invoices/${created.id}`, { token: auth })).json()) as { data: Record<string, unknown> }
          ).data;
          expect([read.reference, read.cost_center]).toStrictEqual([reference, costCenter]);
          await storedTextCheck("invoices WHERE id = ?", created.id as string, { reference, cost_center: costCenter });
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "POST /card_orders/{id}/entries keeps voucher_owner_id exactly",
    async () => {
      await fc.assert(
        fc.asyncProperty(carriableText(255, 1), async (owner) => {
          const auth = await caller();
          const order = await createCardOrder(auth);
          const entry = await addEntry(auth, order.id, {
            voucher_owner_id: owner,
            card_holder_name: "Prop Erty",
            amount: "12.00",
          });
          expect(entry.voucher_owner_id).toBe(owner);
          const listed = (
            (await (await call(`/card_orders/${order.id}/entries`, { token: auth })).json()) as {
              data: Record<string, unknown>[];
            }
          ).data;
          expect(listed.map((e) => e.voucher_owner_id)).toStrictEqual([owner]);
          await storedTextCheck("card_order_entries WHERE id = ?", entry.id as string, { voucher_owner_id: owner });
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "PUT notification token keeps device_identifier (listed) and value (stored, never shown) exactly",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          storedText(255, 1).filter((text) => !UNNAMEABLE.includes(text)),
          storedText(4096, 1),
          async (device, value) => {
            const sub = unique("owner");
            const auth = await token({ sub });
            const put = await call("/voucher_owners/me/notification_tokens", {
              token: auth,
              method: "PUT",
              json: { value, device_identifier: device },
            });
            expect(put.status).toBe(204);
            const list = (await (await call("/voucher_owners/me/notification_tokens", { token: auth })).json()) as {
              data: Record<string, unknown>[];
            };
            expect(list.data.map((d) => d.device_identifier)).toStrictEqual([device]);
            await storedTextCheck("notification_tokens WHERE owner_id = ?", sub, { device_identifier: device, value });
          },
        ),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "DELETE /voucher_owners/me/notification_tokens/{device} finds every device PUT accepted, percent-encoded",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(storedText(255, 1), fc.constantFrom(...URL_SPECIAL)), async (device) => {
          const sub = unique("owner");
          const auth = await token({ sub });
          const put = await call("/voucher_owners/me/notification_tokens", {
            token: auth,
            method: "PUT",
            json: { value: unique("value"), device_identifier: device },
          });
          if (UNNAMEABLE.includes(device)) {
            // No URL path can hold these as a segment (the URL parser resolves them), so no DELETE could name them.
            expect({ status: put.status, body: await put.json() }).toStrictEqual({
              status: 422,
              body: {
                errors: [
                  {
                    detail: expect.stringMatching(/\S/),
                    code: "validation_failed",
                    source: { pointer: "/device_identifier" },
                  },
                ],
              },
            });
            return;
          }
          expect(put.status).toBe(204);
          const deleted = await call(`/voucher_owners/me/notification_tokens/${encodeURIComponent(device)}`, {
            token: auth,
            method: "DELETE",
          });
          expect(deleted.status).toBe(204);
          const { results } = await env.DB.prepare(
            "SELECT device_identifier FROM notification_tokens WHERE owner_id = ?",
          )
            .bind(sub)
            .all();
          expect(results, `device ${JSON.stringify(device)} is gone`).toStrictEqual([]);
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------------------------------------
// Unpaired surrogates and lengths in code points
// ---------------------------------------------------------------------------------------------

/** A well-formed text with one unpaired surrogate somewhere in it. */
const withLoneSurrogate = fc
  .tuple(
    storedText(20),
    fc.oneof(fc.integer({ min: 0xd800, max: 0xdbff }), fc.integer({ min: 0xdc00, max: 0xdfff })),
    storedText(20),
  )
  .map(([before, unit, after]) => {
    // A high surrogate must not be followed by a low one, nor a low one preceded by a high one.
    const high = unit <= 0xdbff;
    return `${before}${high ? "" : "x"}${String.fromCharCode(unit)}${high ? "x" : ""}${after}`;
  })
  .filter((text) => !text.isWellFormed());

const TOKENS_PATH = "/voucher_owners/me/notification_tokens";
const STRING_FIELDS = [
  { path: "/card_orders", method: "POST", field: "description" },
  { path: "/card_orders", method: "POST", field: "invoice_reference" },
  { path: "/card_orders", method: "POST", field: "cost_center" },
  { path: "/invoices", method: "POST", field: "reference" },
  { path: TOKENS_PATH, method: "PUT", field: "device_identifier" },
  { path: TOKENS_PATH, method: "PUT", field: "value" },
] as const;

async function validBody(path: string, auth: string): Promise<Record<string, unknown>> {
  if (path === "/card_orders") return { voucher_category: "gift", payment_method: "bank_transfer" };
  if (path === "/invoices") return { order_id: (await orderIn(auth, "submitted")).id };
  return { value: unique("value"), device_identifier: unique("device") };
}

/** Rows the caller's request could have written. */
async function storedFor(sub: string, customer: string) {
  const { results } = await env.DB.prepare(
    [
      "SELECT 'order' AS kind, id FROM card_orders WHERE customer_id = ?1",
      "SELECT 'invoice', id FROM invoices WHERE customer_id = ?1",
      "SELECT 'token', device_identifier FROM notification_tokens WHERE owner_id = ?2",
      "SELECT 'entry', e.id FROM card_order_entries e JOIN card_orders o ON o.id = e.order_id WHERE o.customer_id = ?1",
    ].join(" UNION ALL "),
  )
    .bind(customer, sub)
    .all();
  return results;
}

describe("text that cannot be stored faithfully is refused, and lengths count code points", () => {
  it(
    "strings with unpaired surrogates answer 422 on their field and store nothing",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...STRING_FIELDS),
          withLoneSurrogate,
          async ({ path, method, field }, text) => {
            const [sub, customer] = [unique("owner"), unique("customer")];
            const auth = await token({ sub, customer_id: customer });
            const body = { ...(await validBody(path, auth)), [field]: text };
            const before = await storedFor(sub, customer);
            // JSON.stringify writes a lone surrogate as a \u escape: the body is valid UTF-8 JSON.
            const response = await call(path, { token: auth, method, json: body });
            const answer = await response.json();
            expect({ status: response.status, answer }).toStrictEqual({
              status: 422,
              answer: {
                errors: [
                  { detail: expect.stringMatching(/\S/), code: "validation_failed", source: { pointer: `/${field}` } },
                ],
              },
            });
            expect(await storedFor(sub, customer)).toStrictEqual(before);
          },
        ),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  // Astral characters are two UTF-16 units and up to four UTF-8 bytes, but one character each.
  const character = fc.oneof(
    fc.constantFrom("a", "é", "€", "😀", "𝄞", "\u{10ffff}", "\u0000"),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  );
  /** Exactly `n` characters, cycling through a few generated ones (only XML's where the text can reach an e-invoice). */
  const textOfLength = (n: number, carriable: boolean) =>
    fc
      .array(carriable ? character.filter(isCarriable) : character, { minLength: 1, maxLength: 6 })
      .map((chars) => Array.from({ length: n }, (_, i) => chars[i % chars.length]).join(""));
  const FIELD_LIMITS = [
    ...STRING_FIELDS.map((f) => ({ ...f, max: f.field === "value" ? 4096 : 255, carriable: f.path !== TOKENS_PATH })),
  ];

  it(
    "a text field takes up to its limit in characters, not UTF-16 units or bytes, and refuses one more",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...FIELD_LIMITS).chain((limit) =>
            fc.record({
              limit: fc.constant(limit),
              text: fc
                .integer({ min: limit.max - 2, max: limit.max + 2 })
                .chain((n) => textOfLength(n, limit.carriable)),
            }),
          ),
          async ({ limit: { path, method, field, max }, text }) => {
            const [sub, customer] = [unique("owner"), unique("customer")];
            const auth = await token({ sub, customer_id: customer });
            const response = await call(path, {
              token: auth,
              method,
              json: { ...(await validBody(path, auth)), [field]: text },
            });
            const fits = codePoints(text) <= max;
            if (fits)
              expect(response.status, `${field} of ${codePoints(text)} characters`).toBe(method === "PUT" ? 204 : 201);
            else {
              expect(response.status, `${field} of ${codePoints(text)} characters`).toBe(422);
              expect(((await response.json()) as { errors: unknown[] }).errors).toStrictEqual([
                { detail: expect.stringMatching(/\S/), code: "validation_failed", source: { pointer: `/${field}` } },
              ]);
            }
          },
        ),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
  /** The fields whose text can reach an e-invoice (docs/api.md part 14), each with a request that carries it. */
  const XML_FIELDS = [
    { path: "/card_orders", field: "description" },
    { path: "/card_orders", field: "invoice_reference" },
    { path: "/card_orders", field: "cost_center" },
    { path: "/invoices", field: "reference" },
    { path: "/card_orders/{order}/entries", field: "voucher_owner_id" },
  ] as const;

  async function carrying(path: (typeof XML_FIELDS)[number]["path"], auth: string) {
    if (path !== "/card_orders/{order}/entries") return { path, body: await validBody(path, auth) };
    const order = await createCardOrder(auth);
    return {
      path: `/card_orders/${order.id}/entries`,
      body: { voucher_owner_id: "owner-p", card_holder_name: "Prop Erty", amount: "12.00" },
    };
  }

  it(
    "characters XML 1.0 cannot carry answer 422 on their field and store nothing, wherever they stand",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...XML_FIELDS),
          carriableText(20),
          notXmlCharacter,
          carriableText(20),
          async ({ path: template, field }, before, bad, after) => {
            const [sub, customer] = [unique("owner"), unique("customer")];
            const auth = await token({ sub, customer_id: customer });
            const { path, body } = await carrying(template, auth);
            const stored = await storedFor(sub, customer);
            const response = await call(path, { token: auth, json: { ...body, [field]: `${before}${bad}${after}` } });
            expect({ status: response.status, answer: await response.json() }).toStrictEqual({
              status: 422,
              answer: {
                errors: [
                  { detail: expect.stringMatching(/\S/), code: "validation_failed", source: { pointer: `/${field}` } },
                ],
              },
            });
            expect(await storedFor(sub, customer)).toStrictEqual(stored);
          },
        ),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
