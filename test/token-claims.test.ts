import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SCOPES } from "./interface-fields";
import { type Bindings, call, unique } from "./support/api";
import { handMade, INVALID_TOKEN_CHALLENGE } from "./support/jwt";

// Correctly signed tokens of every shape: whatever the payload says, the answer is 200, 401 or 403
// as docs/api.md part 2 says, never a 5xx. A model of those rules
// predicts each answer from the payload as the Worker parses it.

const RUNS = 500;
const PROPERTY_TIMEOUT_MS = 90_000;
const ISSUER = "https://issuer.example";
const AUDIENCE = "voucher-billing-api";
const CLOCK_SKEW_SECONDS = 30;
const SUB = unique("claims");

const ROUTES = [
  { path: "/card_orders", scope: "card_orders:read", tenant: true },
  { path: "/voucher_owners/me/notification_tokens", scope: "notification_tokens:write", tenant: false },
] as const;

const now = () => Math.floor(Date.now() / 1000);
const isString = (value: unknown): value is string => typeof value === "string";
const isNumericDate = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isAudience = (value: unknown) => isString(value) || (Array.isArray(value) && value.every(isString));
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const optional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value);

/** What the API must answer to `payload` (parsed JSON) on `route`, with iss/aud checked or not. */
function expectedStatus(payload: unknown, route: (typeof ROUTES)[number], checksIssuer: boolean): 200 | 401 | 403 {
  if (!isObject(payload)) return 401;
  const { sub, exp, nbf, iat, iss, aud, customer_id, scope } = payload;
  const typed =
    isString(sub) &&
    isNumericDate(exp) &&
    optional(nbf, isNumericDate) &&
    optional(iat, isNumericDate) &&
    optional(iss, isString) &&
    optional(aud, isAudience) &&
    optional(customer_id, isString) &&
    optional(scope, isString);
  if (!typed || sub === "") return 401;
  const t = now();
  if (exp <= t || (nbf as number) > t + CLOCK_SKEW_SECONDS || (iat as number) > t + CLOCK_SKEW_SECONDS) return 401;
  if (checksIssuer && (iss !== ISSUER || ![aud].flat().includes(AUDIENCE))) return 401;
  if (!(isString(scope) ? scope.split(" ") : []).includes(route.scope)) return 403;
  if (route.tenant && !customer_id) return 403;
  return 200;
}

// Times keep a minute from every boundary, so that the model and the Worker agree however long a run takes.
const past = fc.integer({ min: 1, max: 10 ** 9 }).map((ago) => now() - ago);
const future = fc.integer({ min: 120, max: 10 ** 9 }).map((ahead) => now() + ahead);
/** nbf and iat: mostly passed, as on a token in use. */
const passedDate = fc.oneof({ weight: 5, arbitrary: past }, future);

/** Any JSON but of the claim's type: near misses first, then anything. */
const otherThan = (isRight: (value: unknown) => boolean) =>
  fc
    .oneof(
      fc.constantFrom<unknown>(null, true, false, 0, 1.5, "", "1767225600", [], {}, ["x"], { sub: "x" }),
      fc.jsonValue({ maxDepth: 3 }),
    )
    .filter((value) => !isRight(value));

/** A claim: mostly of its type, sometimes absent (undefined), sometimes of another type. */
const claim = (right: fc.Arbitrary<unknown>, isRight: (value: unknown) => boolean) =>
  fc.oneof({ weight: 20, arbitrary: right }, fc.constant(undefined), otherThan(isRight));

const scopeText = fc.oneof(
  fc.subarray([...SCOPES]).map((scopes) => scopes.join(" ")),
  fc.subarray([...SCOPES]).map((scopes) => `  ${scopes.join("   ")} `),
  fc.string({ maxLength: 30 }),
);

const CLAIM_NAMES = ["sub", "exp", "nbf", "iat", "iss", "aud", "customer_id", "scope"];

const claims = fc
  .record({
    sub: claim(fc.oneof({ weight: 5, arbitrary: fc.constant(SUB) }, fc.string({ maxLength: 10 })), isString),
    exp: claim(fc.oneof({ weight: 5, arbitrary: future }, past), isNumericDate),
    nbf: claim(passedDate, isNumericDate),
    iat: claim(passedDate, isNumericDate),
    iss: claim(fc.oneof({ weight: 3, arbitrary: fc.constant(ISSUER) }, fc.string({ maxLength: 10 })), isString),
    aud: claim(
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(AUDIENCE) },
        fc.string({ maxLength: 10 }),
        fc.array(fc.oneof(fc.constant(AUDIENCE), fc.string()), { maxLength: 3 }),
      ),
      isAudience,
    ),
    customer_id: claim(fc.oneof({ weight: 5, arbitrary: fc.constant("acme") }, fc.string({ maxLength: 10 })), isString),
    scope: claim(fc.oneof({ weight: 5, arbitrary: fc.constant(SCOPES.join(" ")) }, scopeText), isString),
    // Claims the API does not read: ignored, whatever their type.
    extra: fc.dictionary(
      fc.string({ maxLength: 8 }).filter((name) => !CLAIM_NAMES.includes(name)),
      fc.jsonValue({ maxDepth: 3 }),
      { maxKeys: 3 },
    ),
  })
  .map(({ extra, ...known }) => ({ ...extra, ...known }));

/** Payloads that are not a JSON object, some of them with every claim inside. */
const notAnObject = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).filter((value) => !isObject(value)),
  claims.map((inside) => [inside]),
  claims.map((inside) => JSON.stringify(inside)),
);

describe("signed tokens of any shape", () => {
  it(
    "answer 200, 401 invalid_token or 403 as the rules say, never a 5xx",
    async () => {
      const seen = new Set<number>();
      await fc.assert(
        fc.asyncProperty(
          fc.oneof({ weight: 4, arbitrary: claims }, notAnObject),
          fc.constantFrom(...ROUTES),
          fc.boolean(),
          async (generated, route, checksIssuer) => {
            const payload = JSON.stringify(generated);
            const bindings: Bindings = checksIssuer ? { JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE } : {};
            const token = await handMade({ alg: "HS256", typ: "JWT" }, payload);
            const response = await call(route.path, { token, env: bindings });
            const body = (await response.json()) as { errors?: { code: string }[] };
            const expected = expectedStatus(JSON.parse(payload), route, checksIssuer);
            const context = `${route.path} ${payload}`;
            expect(response.status, context).toBe(expected);
            seen.add(expected);
            if (expected === 401) {
              expect(
                body.errors?.map((e) => e.code),
                context,
              ).toStrictEqual(["unauthorized"]);
              expect(response.headers.get("WWW-Authenticate"), context).toMatch(INVALID_TOKEN_CHALLENGE);
            }
            if (expected === 403)
              expect(
                body.errors?.map((e) => e.code),
                context,
              ).toStrictEqual(["forbidden"]);
          },
        ),
        { numRuns: RUNS },
      );
      // The generators reach every outcome, not only the refusals.
      expect([...seen].sort()).toStrictEqual([200, 401, 403]);
    },
    PROPERTY_TIMEOUT_MS,
  );
});
