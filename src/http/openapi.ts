import * as z from "zod/mini";
import { BOOKMARK_HEADER } from "../db";
import { ERRORS, type ErrorCode } from "../errors";
import { BODY_LIMIT_BYTES } from "./json-body";
import { errorsOf, type Endpoint, type RouteSpec } from "./route";

/** Schemas that appear by name under `components.schemas`. */
export const components = z.registry<{ id: string; description?: string }>();

export function named<T extends z.ZodMiniType>(id: string, schema: T, description?: string): T {
  components.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}

const integer = () => z.int().register(z.globalRegistry, { minimum: 0 });
const link = () => z.string().register(z.globalRegistry, { format: "uri" });

/** Wire formats of CONTRACT part 1, for response schemas. */
export const dateTime = () => z.string().register(z.globalRegistry, { format: "date-time", examples: ["2026-11-22T09:15:30.123Z"] });
export const date = () => z.string().register(z.globalRegistry, { format: "date", examples: ["2026-11-22"] });

const PageMeta = named(
  "PageMeta",
  z.object({ total_pages: integer(), current_page: integer(), page_size: integer(), total_entries: integer() }),
);
const PageLinks = named(
  "PageLinks",
  z.object({ self: link(), first: link(), last: link(), prev: z.nullable(link()), next: z.nullable(link()) }),
  "Absolute URLs built from the request URL, keeping every other query parameter.",
);

/** The seed's paged list envelope (2.4) around `item`. */
export const listOf = (id: string, item: z.ZodMiniType) => named(id, z.object({ meta: PageMeta, data: z.array(item), links: PageLinks }));

/** `{"data": item}`, the answer of a single-resource GET or a transition. */
export const dataOf = (id: string, item: z.ZodMiniType) => named(id, z.object({ data: item }));

export const ErrorEnvelope = named(
  "ErrorEnvelope",
  z.object({
    errors: z.array(
      z.object({
        detail: z.string(),
        code: z.enum(Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]),
        source: z.union([
          z.object({ pointer: z.string() }),
          z.object({ parameter: z.string() }),
          z.object({ header: z.string() }),
          z.object({}),
        ]),
      }),
    ),
  }),
  "The seed's error envelope (2.5); `source` points at the body field, query parameter or header at fault.",
);

const header = (description: string, schema: Record<string, unknown> = { type: "string" }) => ({ description, schema });

const COMMON_RESPONSE_HEADERS = {
  "X-Request-Id": header("The request's id (the client's own X-Request-Id when it sent a sane one)."),
};

const ERROR_RESPONSE_HEADERS: Partial<Record<number, Record<string, unknown>>> = {
  401: { "WWW-Authenticate": header('RFC 6750 challenge: `Bearer realm="…"`, with `error="invalid_token"` when a token was refused.') },
  403: { "WWW-Authenticate": header('`Bearer realm="…", error="insufficient_scope", scope="…"` when a scope is missing.') },
  429: { "Retry-After": header("Seconds to wait.", { type: "integer" }) },
  503: { "Retry-After": header("Seconds to wait.", { type: "integer" }) },
};

function schemaRef(schema: z.ZodMiniType): Record<string, unknown> {
  const id = components.get(schema)?.id;
  if (id) return { $ref: `#/components/schemas/${id}` };
  const { $schema: _, ...inline } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return inline;
}

function operation(spec: RouteSpec) {
  const parameters: unknown[] = [...spec.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: "path", required: true, schema: { type: "string" } }));
  for (const q of spec.query ?? []) parameters.push({ name: q.name, in: "query", required: false, description: q.description, schema: q.schema });
  if (spec.access && spec.method === "post") {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "1-255 visible ASCII characters. A repeat of the same request by the same principal within 24 h replays the first response (with `Idempotent-Replayed: true`) and writes nothing; the same key with another request answers 422 idempotency_key_reused.",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
  }
  if (spec.access) {
    parameters.push({
      name: BOOKMARK_HEADER,
      in: "header",
      required: false,
      description: "A D1 bookmark from an earlier response: reads then see at least that state (read-your-writes across replicas).",
      schema: { type: "string" },
    });
  }

  const successHeaders: Record<string, unknown> = { ...COMMON_RESPONSE_HEADERS };
  if (spec.access) successHeaders[BOOKMARK_HEADER] = header("The session's latest D1 bookmark; send it back to read your own writes from any replica.");

  const responses: Record<string, unknown> = {
    [spec.success.status]: {
      description: spec.success.description,
      headers: successHeaders,
      ...(spec.success.schema ? { content: { [spec.success.mediaType ?? "application/json"]: { schema: schemaRef(spec.success.schema) } } } : {}),
    },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorsOf(spec)) byStatus.set(ERRORS[code][0], [...(byStatus.get(ERRORS[code][0]) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: codes.map((code) => `\`${code}\`: ${ERRORS[code][1]}`).join(" "),
      headers: { ...COMMON_RESPONSE_HEADERS, ...ERROR_RESPONSE_HEADERS[status] },
      content: { "application/json": { schema: schemaRef(ErrorEnvelope) } },
    };
  }

  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    security: spec.access ? [{ bearerAuth: [spec.access.scope] }] : [],
    ...(spec.access ? { "x-required-scope": spec.access.scope, "x-requires-customer": spec.access.tenant } : {}),
    parameters,
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            description: `JSON object, at most ${BODY_LIMIT_BYTES / 1024} KiB. Unknown fields are refused.`,
            content: { "application/json": { schema: schemaRef(spec.body) } },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, built from the same specs and schemas that the app mounts and validates with. */
export function openApiDocument(endpoints: readonly Endpoint[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { spec } of endpoints) (paths[spec.path] ??= {})[spec.method] = operation(spec);

  const { schemas } = z.toJSONSchema(components, { uri: (id) => `#/components/schemas/${id}`, io: "input" }) as { schemas: Record<string, Record<string, unknown>> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Invoices, card orders and notification tokens",
      version: "1.0.0",
      description:
        "Bearer JWTs carry `sub`, `customer_id` and space-separated `scope`. Lists take `page` (from 1) and `page_size` (1-100, default 25) and are newest first. Every error is the envelope `{errors: [{detail, code, source}]}`. POSTs accept an `Idempotency-Key`. Responses carry `x-d1-bookmark`; echo it to read your own writes.",
    },
    servers: [{ url: "/" }],
    tags: [{ name: "Card orders" }, { name: "Invoices" }, { name: "Notification tokens" }, { name: "Service" }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      schemas,
    },
  };
}

/**
 * An interactive reference over /openapi.json: Scalar's standalone bundle from its CDN, pinned to
 * one version and checked by Subresource Integrity (the hash of that file in the npm package), so
 * that a changed file on the CDN is refused rather than run on this origin.
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>API reference</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<script id="api-reference" data-url="/openapi.json"></script>
<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1/dist/browser/standalone.js" integrity="sha384-U11tb2XnKvmwt8RlTvnwUnYgrN+ur4Xyh9htLhjajWNR/Oyl5AX5DEz00qRmlrmK" crossorigin="anonymous"></script>
</body>
</html>`;
