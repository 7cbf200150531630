import * as z from "zod/mini";
import { ERRORS, type ErrorCode } from "../errors";
import { BOOKMARK_HEADER } from "../http/d1-bookmark";
import { errorsOf } from "../http/mount";
import { BODY_LIMIT_BYTES, NO_BODY } from "../http/request-body";
import type { Endpoint, RouteSpec } from "../http/route";
import { ErrorEnvelope } from "../schemas/envelopes";
import { components } from "../schemas/registry";

// Query parameters are strings on the wire; a parameter declared as an integer keeps only that.
const JSON_SCHEMA_OPTIONS = {
  io: "input",
  override: ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }) => {
    if (zodSchema._zod.def.type === "default") jsonSchema.default = zodSchema._zod.def.defaultValue;
  },
} as const;

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
  const { $schema: _, ...inline } = z.toJSONSchema(schema, JSON_SCHEMA_OPTIONS) as Record<string, unknown>;
  return inline;
}

function operation(spec: RouteSpec) {
  const parameters: unknown[] = [...spec.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: "path", required: true, schema: { type: "string" } }));
  const query = z.toJSONSchema(spec.query, JSON_SCHEMA_OPTIONS) as { properties?: Record<string, { description?: string }> };
  for (const [name, { description, ...schema }] of Object.entries(query.properties ?? {})) {
    parameters.push({ name, in: "query", required: false, description, schema });
  }
  if (spec.access && spec.method === "post") {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "1-255 visible ASCII characters. A repeat of the same request (method, path and query string, customer, and the body as JSON: spacing and key order aside) by the same principal within 24 h replays the first response (with `Idempotent-Replayed: true`) and writes nothing; the same key with another request answers 422 idempotency_key_reused.",
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
      ...(spec.success.status === 204 ? {} : { content: { [spec.success.mediaType ?? "application/json"]: { schema: schemaRef(spec.success.schema) } } }),
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
    ...(spec.body !== NO_BODY
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

  const { schemas } = z.toJSONSchema(components, { ...JSON_SCHEMA_OPTIONS, uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, Record<string, unknown>> };
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
        "Bearer JWTs carry `sub`, `customer_id` and space-separated `scope`, all strings: a claim of another type makes the token invalid (401). Lists take `page` (from 1) and `page_size` (1-100, default 25) and are newest first. Every error is the envelope `{errors: [{detail, code, source}]}`. POSTs accept an `Idempotency-Key`. Responses carry `x-d1-bookmark`; echo it to read your own writes.",
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

