import type { Context, Hono, MiddlewareHandler } from "hono";
import type * as z from "zod/mini";
import { authenticate, type AccessRequirement } from "../auth";
import type { AppEnv } from "../env";
import { ApiError, type ErrorCode } from "../errors";
import { idempotency } from "../idempotency";
import { jsonBody } from "./json-body";
import { rateLimit } from "./rate-limit";
import type { RequestSchema } from "./validation";

export type HttpMethod = "get" | "post" | "put" | "delete";

export interface QueryParameter {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

/** Everything about a route but its handler: what the app mounts and the OpenAPI document shows. */
export interface RouteSpec<Body extends RequestSchema | undefined = RequestSchema | undefined> {
  method: HttpMethod;
  /** OpenAPI form, e.g. `/card_orders/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Absent: a public route. */
  access?: AccessRequirement;
  body?: Body;
  query?: QueryParameter[];
  /** Errors particular to this route, beyond those that follow from its access, body and path. */
  errors?: ErrorCode[];
  success: { status: 200 | 201 | 204; description: string; schema?: z.ZodMiniType; mediaType?: string };
}

export type BodyOf<S extends RouteSpec> = S["body"] extends z.ZodMiniType<infer T> ? T : undefined;

export type Handler<S extends RouteSpec> = (c: Context<AppEnv>, body: BodyOf<S>) => Response | Promise<Response>;

export interface Endpoint {
  spec: RouteSpec;
  handler: Handler<RouteSpec>;
}

export const endpoint = <S extends RouteSpec>(spec: S, handler: Handler<S>): Endpoint => ({ spec, handler: handler as Handler<RouteSpec> });

export const honoPath = (path: string): string => path.replace(/\{(\w+)\}/g, ":$1");

// The checks a route goes through, in this order, each with the errors it can answer: token and
// scope before any lookup, then the rate limit, the body, and idempotency. Mounting and the OpenAPI
// document both read this list.
const CHECKS: { applies: (spec: RouteSpec) => boolean; middleware: (spec: RouteSpec) => MiddlewareHandler<AppEnv>[]; errors: ErrorCode[] }[] = [
  {
    applies: (spec) => spec.access !== undefined,
    middleware: (spec) => [authenticate(spec.access!), rateLimit],
    errors: ["unauthorized", "forbidden", "rate_limited"],
  },
  {
    applies: (spec) => spec.body !== undefined,
    middleware: (spec) => [jsonBody(spec.body!)],
    errors: ["invalid_json", "payload_too_large", "unsupported_media_type", "validation_failed"],
  },
  {
    applies: (spec) => spec.access !== undefined && spec.method === "post",
    middleware: () => [idempotency],
    errors: ["invalid_parameter", "idempotency_key_reused"],
  },
];

/** The errors a route can answer, derived from what it does (for the OpenAPI document). */
export function errorsOf(spec: RouteSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(spec.errors);
  for (const check of CHECKS) if (check.applies(spec)) check.errors.forEach((code) => codes.add(code));
  // Authenticated routes use the database; their GETs read the x-d1-bookmark header.
  if (spec.access) codes.add("unavailable");
  if (spec.query?.length || (spec.access && spec.method === "get")) codes.add("invalid_parameter");
  if (spec.path.includes("{")) codes.add("not_found");
  codes.add("internal_error");
  return [...codes];
}

/** Mounts each endpoint behind the checks its spec asks for. A known path with another method answers 405. */
export function mount(app: Hono<AppEnv>, endpoints: readonly Endpoint[]): void {
  const methodsByPath = new Map<string, string[]>();
  for (const { spec, handler } of endpoints) {
    const chain = CHECKS.filter((check) => check.applies(spec)).flatMap((check) => check.middleware(spec));
    const path = honoPath(spec.path);
    app.on([spec.method.toUpperCase()], [path], ...chain, (c: Context<AppEnv>) => handler(c, c.var.body as never));
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), spec.method.toUpperCase()]);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = (methods.includes("GET") ? [...methods, "HEAD"] : methods).join(", ");
    app.all(path, () => {
      throw ApiError.of("method_not_allowed", `This path allows ${allow}.`, {}, { Allow: allow });
    });
  }
}
