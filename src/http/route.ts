// A route, in one place: its folder, src/routes/<resource>/.
// - `<resource>.routes.ts`: its spec (RouteSpec): method, path, operationId, tag, access, body, query,
//   params, errors, success, its prose (`docs`; the tag's description on one route of each tag), and
//   the Worker that answers it (`worker: "jobs"`; absent: the API Worker). A folder's routes share a Worker.
// - `<resource>.handlers.ts`: its handler, typed by the spec, and its line in the list ending the file
//   (`endpoint(spec, handler)`, or `loadingEndpoint(spec, load, handler)` for a handler that reads first).
// The route table, src/app.ts `endpoints`, holds each folder once, in the OpenAPI document's order; the
// rest is derived from it: each Worker's mounts (http/app.ts), the requests the API Worker passes on
// (http/pass-on.ts), the OpenAPI document, the tests that cover every route. A folder of the API Worker
// is in the table by its handlers' list; a folder of the jobs Worker by its specs alone
// (`specsOnly(<resource>Routes)`, a list in its .routes.ts), and by its handlers' list in
// src/jobs/handlers.ts: the API Worker imports the table, and its bundle must not carry the jobs
// Worker's code (test/build/api-bundle.test.mjs). Each Worker refuses to start when the table and the
// handlers disagree.
import type { Context } from "hono";
import * as z from "zod/mini";
import type { AccessRequirement } from "../auth/principal";
import type { Loaded, Reads } from "../db/compiled";
import type { AppEnv } from "../env";
import type { ErrorCode } from "../errors";
import type { Reply } from "./reply";
import type { Upload } from "./request-body";
import type { QuerySchema } from "./request-query";
import type { Plan } from "../writes/commit";

type HttpMethod = "get" | "post" | "put" | "delete";

/** The success schema of a route that answers 204. */
export const NO_CONTENT = z.undefined();

/**
 * Everything about a route but its handler: what the Workers mount and pass on, and what the OpenAPI
 * document shows, its prose too.
 */
export interface RouteSpec {
  method: HttpMethod;
  /** OpenAPI form, e.g. `/card_orders/{id}`. */
  path: string;
  operationId: string;
  tag: string;
  /**
   * The Worker that answers the route: absent, the API Worker (src/index.ts); `"jobs"`, the jobs Worker
   * (src/jobs), to which the API Worker passes the route's requests on, unread (http/pass-on.ts).
   */
  worker?: "jobs";
  /** Its prose in the OpenAPI document (built at build time: scripts/build-assets.mjs). */
  docs: RouteDocs;
  /** Absent: a public route. */
  access?: AccessRequirement;
  /** NO_BODY (http/request-body.ts) when the route takes none, or a file (`upload`). */
  body: z.ZodMiniType;
  /** A file as the body instead of JSON (a bank statement): the handler's body is its bytes. */
  upload?: Upload;
  /** NO_QUERY (http/request-query.ts) when the route reads no query parameters. */
  query: QuerySchema;
  /** One field per parameter of `path` (absent: it has none); a value it refuses answers 404. */
  params?: z.ZodMiniObject<Record<string, z.ZodMiniType<string, string>>>;
  /** Errors particular to this route, beyond those that follow from its access, body and path. */
  errors?: ErrorCode[];
  /** `headers`: fixed values its handler sets beyond those of every response (the document shows them). */
  success: {
    status: 200 | 201 | 202 | 204;
    schema: z.ZodMiniType;
    mediaType?: string;
    /** Other media types the success may be, with their JSON Schema (plain data: no schema to build at start-up). */
    alternatives?: Record<string, Record<string, unknown>>;
    headers?: Record<string, string>;
    /** A stored document: an attachment with a strong ETag; a matching If-None-Match answers 304. */
    conditional?: true;
    /**
     * `Location` names the resource the write made (its plan's `location`, under the route's path),
     * replayed too. For the OpenAPI document; the handler's plan must then give it.
     */
    location?: true;
  };
}

/** A route's prose in the OpenAPI document. `success`: the description of the success response. */
interface RouteDocs {
  /** The description of the route's tag: one route of each tag carries it. */
  tag?: string;
  summary: string;
  description: string;
  success: string;
}

/** What a route's steps gather from the request: its body, query and path parameters, validated. */
interface Request<S extends RouteSpec> {
  body: S extends { upload: Upload } ? Uint8Array : z.output<S["body"]>;
  query: z.output<S["query"]>;
  params: S extends { params: z.ZodMiniType } ? z.output<S["params"]> : undefined;
}

/**
 * A route's load step: the reads its handler acts on, by name, which the pipeline sends in one round
 * trip (with the Idempotency-Key's lookup on a keyed POST: a repeat is answered before the handler).
 */
type Load<S extends RouteSpec, R extends Reads> = (c: Context<AppEnv>, request: Request<S>) => R;

/**
 * What a route's handler gets: the request's parts, what its load step read (`loaded`), and `reload`,
 * the same reads again (to say why a write that lost to a concurrent one was refused).
 */
interface Input<S extends RouteSpec, L = Record<string, never>> extends Request<S> {
  loaded: L;
  reload: () => Promise<L>;
}

type Body<S extends RouteSpec> = z.input<S["success"]["schema"]>;
/** What a load step `F` reads, by name (nothing without one). */
type LoadedBy<F> = F extends (...args: never[]) => infer R
  ? R extends Reads
    ? Loaded<R>
    : never
  : Record<string, never>;

/** A write's plan for route `S`: one that answers `Location` must name the resource made. */
type PlanOf<S extends RouteSpec> = S["success"] extends { location: true }
  ? Plan<Body<S>> & { location: string }
  : Plan<Body<S>>;

/**
 * A route's handler answers the body of its success schema (errors are thrown as ApiError): as a
 * response (a read), or, for a write, as its plan, which the pipeline commits (writes/commit.ts); `F`
 * is its load step, if it has one: `Handler<typeof routes.x, typeof loadX>`.
 */
export type Handler<S extends RouteSpec, F = undefined> = (
  c: Context<AppEnv>,
  input: Input<S, LoadedBy<F>>,
) => Reply<Body<S>> | PlanOf<S> | Promise<Reply<Body<S>> | PlanOf<S>>;

/** A route, its load step and its handler, which get the input that the steps of http/mount.ts gather. */
export interface Endpoint {
  spec: RouteSpec;
  load?: (c: Context<AppEnv>, request: never) => Reads;
  handler: (c: Context<AppEnv>, input: never) => Response | Plan<unknown> | Promise<Response | Plan<unknown>>;
}

/**
 * A row of the route table (src/app.ts): a route of the API Worker with its handler (an Endpoint), or a
 * route of the jobs Worker by its spec alone (`specsOnly`), whose handler the jobs Worker binds (http/app.ts).
 */
export type Route = Endpoint | { spec: RouteSpec; load?: undefined; handler?: undefined };

/** The rows of a jobs Worker's folder in the route table: its specs, without the handlers' code. */
export const specsOnly = (specs: readonly RouteSpec[]): Route[] => specs.map((spec) => ({ spec }));

/** Binds a handler to its route: the handler's types follow from the route's schemas. */
export const endpoint = <S extends RouteSpec>(spec: S, handler: Handler<S>): Endpoint => ({ spec, handler });

/** Binds a load step and a handler to their route: the handler gets what the step read, by name. */
export const loadingEndpoint = <S extends RouteSpec, F extends Load<S, Reads>>(
  spec: S,
  load: F,
  handler: Handler<S, F>,
): Endpoint => ({ spec, load, handler });
