import type { Context } from "hono";
import * as z from "zod/mini";
import type { AccessRequirement } from "../auth/principal";
import type { AppEnv } from "../env";
import type { ErrorCode } from "../errors";
import { withIdempotencyKey } from "./idempotency-key";
import type { Reply } from "./reply";
import { readJsonBody } from "./request-body";
import { readQuery, type QuerySchema } from "./request-query";

type HttpMethod = "get" | "post" | "put" | "delete";

/** The success schema of a route that answers 204. */
export const NO_CONTENT = z.undefined();

/** Everything about a route but its handler: what the app mounts and the OpenAPI document shows. */
export interface RouteSpec {
  method: HttpMethod;
  /** OpenAPI form, e.g. `/card_orders/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /** Absent: a public route. */
  access?: AccessRequirement;
  /** NO_BODY (http/request-body.ts) when the route takes none. */
  body: z.ZodMiniType;
  /** NO_QUERY (http/request-query.ts) when the route reads no query parameters. */
  query: QuerySchema;
  /** Errors particular to this route, beyond those that follow from its access, body and path. */
  errors?: ErrorCode[];
  /** `headers`: fixed values its handler sets beyond those of every response (the document shows them). */
  success: {
    status: 200 | 201 | 204;
    description: string;
    schema: z.ZodMiniType;
    mediaType?: string;
    headers?: Record<string, string>;
  };
}

/** What a route's handler gets: its body and query, validated against the route's schemas. */
interface Input<S extends RouteSpec> {
  body: z.output<S["body"]>;
  query: z.output<S["query"]>;
}

/** A route's handler answers the body of its success schema (errors are thrown as ApiError). */
export type Handler<S extends RouteSpec> = (
  c: Context<AppEnv>,
  input: Input<S>,
) => Reply<z.input<S["success"]["schema"]>> | Promise<Reply<z.input<S["success"]["schema"]>>>;

/** A route and what runs it: its input checks, then its handler. */
export interface Endpoint {
  spec: RouteSpec;
  run: (c: Context<AppEnv>) => Promise<Response>;
}

/**
 * Binds a handler to its route. The body is checked before the Idempotency-Key, so a request that
 * could never succeed is refused as itself (CONTRACT part 12); POSTs of authenticated routes go
 * through the Idempotency-Key check.
 */
export function endpoint<S extends RouteSpec>(spec: S, handler: Handler<S>): Endpoint {
  const keyed = spec.access !== undefined && spec.method === "post";
  return {
    spec,
    run: async (c) => {
      const body = await readJsonBody<S["body"]>(c, spec.body);
      const query = readQuery<S["query"]>(c, spec.query);
      const respond = async () => handler(c, { body: body.value, query });
      return keyed ? withIdempotencyKey(c, body.json, respond) : respond();
    },
  };
}
