import type { Context } from "hono";
import type { HonoBase } from "hono/hono-base";
import { authenticate } from "../auth/authenticate";
import type { IdempotencyClaim } from "../db/idempotency-keys";
import type { AppEnv } from "../env";
import { ApiError, notFound, type ErrorCode } from "../errors";
import { database } from "./database";
import { lookUp, underIdempotencyKey, type PendingKey } from "./idempotency-key";
import { rateLimit } from "./rate-limit";
import { NO_BODY, readJsonBody, readUpload } from "./request-body";
import { readQuery } from "./request-query";
import type { Endpoint, RouteSpec } from "./route";
import { commit, isPlan } from "../writes/commit";

const honoPath = (path: string): string => path.replace(/\{(\w+)\}/g, ":$1");

const authenticated = (spec: RouteSpec) => spec.access !== undefined;
/** The routes that take an Idempotency-Key: every authenticated POST (docs/api.md part 7). */
export const keyed = (spec: RouteSpec) => authenticated(spec) && spec.method === "post";

/**
 * What the steps gather for the handler (http/route.ts types it per route): `json` is the body as sent,
 * `key` the Idempotency-Key until its lookup, `claim` the key found free, for the commit of the
 * handler's plan (not the handler's).
 */
interface Input {
  body?: unknown;
  json?: unknown;
  query?: unknown;
  params?: unknown;
  key?: PendingKey;
  claim?: IdempotencyClaim;
  loaded?: unknown;
  reload?: () => Promise<unknown>;
}

interface Step {
  applies: (spec: RouteSpec, load?: Endpoint["load"]) => boolean;
  /** What the step does to the request, then `next`: the steps after it and the handler. */
  run?: (c: Context<AppEnv>, endpoint: Endpoint, input: Input, next: () => Promise<Response>) => Promise<Response>;
  errors: ErrorCode[];
}

/**
 * The request pipeline: what a route goes through before its handler, in this order, and the errors
 * each step can answer. Token and scope before any lookup, then the rate limit; the body and the
 * query before the Idempotency-Key, so that a request that could never succeed is refused as itself
 * (docs/api.md part 12); under the key, the path parameters, the load step (the route's reads and the
 * key's lookup in one round trip: a repeat ends there) and the handler, whose refusal may then be the
 * key's earlier response. Last, a handler's plan is committed (writes/commit.ts), under the key's
 * claim. Mounting runs it; the OpenAPI document shows its errors.
 */
const STEPS: Step[] = [
  {
    applies: authenticated,
    run: async (c, { spec }, _, next) => {
      await authenticate(c, spec.access!);
      await rateLimit(c);
      return next();
    },
    errors: ["unauthorized", "forbidden", "rate_limited"],
  },
  {
    applies: (spec) => spec.body !== NO_BODY,
    run: async (c, { spec }, input, next) => {
      ({ value: input.body, json: input.json } = await readJsonBody(c, spec.body));
      return next();
    },
    errors: ["invalid_json", "payload_too_large", "unsupported_media_type", "validation_failed"],
  },
  // A file as the body: its bytes for the handler, its digest for the Idempotency-Key's fingerprint.
  {
    applies: (spec) => spec.upload !== undefined,
    run: async (c, { spec }, input, next) => {
      ({ bytes: input.body, digest: input.json } = await readUpload(c, spec.upload!));
      return next();
    },
    errors: ["payload_too_large", "unsupported_media_type"],
  },
  // Query parameters; authenticated GETs also read the x-d1-bookmark header (http/database.ts).
  {
    applies: (spec) => Object.keys(spec.query.shape).length > 0 || (authenticated(spec) && spec.method === "get"),
    run: (c, { spec }, input, next) => {
      input.query = readQuery(c, spec.query);
      return next();
    },
    errors: ["invalid_parameter"],
  },
  {
    applies: keyed,
    run: (c, _, input, next) =>
      underIdempotencyKey(c, input.json, (key) => {
        input.key = key;
        return next();
      }),
    errors: ["invalid_parameter", "idempotency_key_reused"],
  },
  // A path parameter that cannot name what it names (its schema's message) answers 404 unread.
  {
    applies: (spec) => spec.params !== undefined,
    run: (c, { spec }, input, next) => {
      const params = spec.params!.safeParse(c.req.param());
      if (!params.success) throw notFound(params.error.issues[0]!.message);
      input.params = params.data;
      return next();
    },
    errors: ["not_found"],
  },
  // The route's reads, and under a key its lookup, in one round trip; the handler gets them by name.
  {
    applies: (spec, load) => load !== undefined || keyed(spec),
    run: async (c, { load }, input, next) => {
      const reads = () => load?.(c, input as never) ?? {};
      const looked = await lookUp(c, reads(), input.key);
      if ("replayed" in looked) return looked.replayed;
      input.loaded = looked.loaded;
      input.claim = looked.claim;
      input.reload = () => database(c).load(reads());
      return next();
    },
    errors: [],
  },
  // Authenticated routes use the database.
  { applies: authenticated, errors: ["unavailable"] },
  { applies: () => true, errors: ["internal_error"] },
];

/** The errors a route can answer, derived from what it does (for the OpenAPI document). */
export function errorsOf(spec: RouteSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(spec.errors);
  for (const step of STEPS) if (step.applies(spec)) step.errors.forEach((code) => codes.add(code));
  return [...codes];
}

/** The handler's answer: its response, or its plan committed (with the Idempotency-Key's claim, if any). */
async function answer(c: Context<AppEnv>, { spec, handler }: Endpoint, input: Input): Promise<Response> {
  const answered = await handler(c, input as never);
  return isPlan(answered) ? commit(c, answered, input.claim, spec.path) : answered;
}

/** Mounts each endpoint behind the steps its spec asks for. A known path with another method answers 405. */
export function mount(app: HonoBase<AppEnv>, endpoints: readonly Endpoint[]): void {
  const methodsByPath = new Map<string, string[]>();
  for (const endpoint of endpoints) {
    const { spec } = endpoint;
    const steps = STEPS.filter((step) => step.run && step.applies(spec, endpoint.load));
    const path = honoPath(spec.path);
    app.on([spec.method.toUpperCase()], [path], (c) => {
      const input: Input = {};
      const from = async (i: number): Promise<Response> =>
        i < steps.length ? steps[i]!.run!(c, endpoint, input, () => from(i + 1)) : answer(c, endpoint, input);
      return from(0);
    });
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), spec.method.toUpperCase()]);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = (methods.includes("GET") ? [...methods, "HEAD"] : methods).join(", ");
    app.all(path, () => {
      throw ApiError.of("method_not_allowed", `This path allows ${allow}.`, {}, { Allow: allow });
    });
  }
}
