import * as z from "zod/mini";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { DOCS_CSP } from "../../openapi/docs-page";
import { named } from "../../schemas/registry";

const TAG = "Service";
const PUBLIC = { tag: TAG, body: NO_BODY, query: NO_QUERY } as const;
// The document and its reference change only with a deployment.
const PUBLIC_CACHE = "public, max-age=300";

const Health = named("Health", z.strictObject({ status: z.literal("ok") }));
const ServiceIndex = named(
  "ServiceIndex",
  z.strictObject({ links: z.strictObject({ docs: z.string(), openapi: z.string() }) }),
);

/** Where a first request, a browser's or curl's, finds the reference (docs/api.md part 5, "Service endpoints"). */
export const index = {
  ...PUBLIC,
  method: "get",
  path: "/",
  operationId: "serviceIndex",
  docs: {
    summary: "Where the reference is",
    description: "Links to the interactive reference (/docs) and this document (/openapi.json); no token needed.",
    success: "The links, absolute URLs on the host the request named.",
  },
  success: { status: 200, schema: ServiceIndex },
} satisfies RouteSpec;

export const health = {
  ...PUBLIC,
  method: "get",
  path: "/health",
  operationId: "health",
  success: { status: 200, schema: Health },
  docs: {
    tag: "Public, without a token: liveness, this document and its interactive reference.",
    summary: "Liveness: the Worker answers (no database call)",
    description: "Answers 200 while the Worker runs; it touches no database and needs no token.",
    success: "Alive.",
  },
} satisfies RouteSpec;

export const openApi = {
  ...PUBLIC,
  method: "get",
  path: "/openapi.json",
  operationId: "openApi",
  success: {
    status: 200,
    schema: z.object({ openapi: z.string() }),
    headers: { "Cache-Control": PUBLIC_CACHE },
  },
  docs: {
    summary: "This OpenAPI 3.1 document",
    description: "The document, built from the same route specs and schemas that the Worker validates with.",
    success: "The document.",
  },
} satisfies RouteSpec;

export const docs = {
  ...PUBLIC,
  method: "get",
  path: "/docs",
  operationId: "docs",
  success: {
    status: 200,
    schema: z.string(),
    mediaType: "text/html",
    headers: { "Cache-Control": PUBLIC_CACHE, "Content-Security-Policy": DOCS_CSP },
  },
  docs: {
    summary: "Interactive API reference",
    description: "An HTML page that renders /openapi.json.",
    success: "An HTML page.",
  },
} satisfies RouteSpec;
