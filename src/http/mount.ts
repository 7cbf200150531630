import type { Hono, MiddlewareHandler } from "hono";
import { authenticate } from "../auth/authenticate";
import type { AppEnv } from "../env";
import { ApiError, type ErrorCode } from "../errors";
import { rateLimit } from "./rate-limit";
import { NO_BODY } from "./request-body";
import type { Endpoint, RouteSpec } from "./route";

const honoPath = (path: string): string => path.replace(/\{(\w+)\}/g, ":$1");

const authenticated = (spec: RouteSpec) => spec.access !== undefined;
const keyed = (spec: RouteSpec) => authenticated(spec) && spec.method === "post";

// What a route goes through, in this order, and the errors each step can answer: token and scope
// before any lookup, then the rate limit, the body, the Idempotency-Key and the query. Mounting
// (the middleware) and the OpenAPI document (the errors) both read this list.
const STEPS: {
  applies: (spec: RouteSpec) => boolean;
  middleware?: (spec: RouteSpec) => MiddlewareHandler<AppEnv>[];
  errors: ErrorCode[];
}[] = [
  {
    applies: authenticated,
    middleware: (spec) => [authenticate(spec.access!), rateLimit],
    errors: ["unauthorized", "forbidden", "rate_limited"],
  },
  {
    applies: (spec) => spec.body !== NO_BODY,
    errors: ["invalid_json", "payload_too_large", "unsupported_media_type", "validation_failed"],
  },
  { applies: keyed, errors: ["invalid_parameter", "idempotency_key_reused"] },
  // Query parameters; authenticated GETs also read the x-d1-bookmark header.
  {
    applies: (spec) => Object.keys(spec.query.shape).length > 0 || (authenticated(spec) && spec.method === "get"),
    errors: ["invalid_parameter"],
  },
  { applies: (spec) => spec.path.includes("{"), errors: ["not_found"] },
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

/** Mounts each endpoint behind the checks its spec asks for. A known path with another method answers 405. */
export function mount(app: Hono<AppEnv>, endpoints: readonly Endpoint[]): void {
  const methodsByPath = new Map<string, string[]>();
  for (const { spec, run } of endpoints) {
    const middleware = STEPS.filter((step) => step.applies(spec)).flatMap((step) => step.middleware?.(spec) ?? []);
    const path = honoPath(spec.path);
    app.on([spec.method.toUpperCase()], [path], ...middleware, run);
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), spec.method.toUpperCase()]);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = (methods.includes("GET") ? [...methods, "HEAD"] : methods).join(", ");
    app.all(path, () => {
      throw ApiError.of("method_not_allowed", `This path allows ${allow}.`, {}, { Allow: allow });
    });
  }
}
