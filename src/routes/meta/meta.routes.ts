import * as z from "zod/mini";
import { named } from "../../http/openapi";
import type { RouteSpec } from "../../http/route";

const TAG = "Service";

export const Health = named("Health", z.object({ status: z.literal("ok") }));

export const health = {
  method: "get",
  path: "/health",
  operationId: "health",
  summary: "Liveness: the Worker answers (no database call)",
  tag: TAG,
  success: { status: 200, description: "Alive.", schema: Health },
} satisfies RouteSpec;

export const openApi = {
  method: "get",
  path: "/openapi.json",
  operationId: "openApi",
  summary: "This OpenAPI 3.1 document",
  tag: TAG,
  success: { status: 200, description: "The document.", schema: z.object({ openapi: z.string() }) },
} satisfies RouteSpec;

export const docs = {
  method: "get",
  path: "/docs",
  operationId: "docs",
  summary: "Interactive API reference",
  tag: TAG,
  success: { status: 200, description: "An HTML page.", schema: z.string(), mediaType: "text/html" },
} satisfies RouteSpec;
