import * as z from "zod/mini";
import { ERRORS, type ErrorCode } from "../errors";
import { ERROR_TEXTS } from "./errors";
import { BOOKMARK_HEADER } from "../http/d1-bookmark";
import { errorsOf, keyed } from "../http/mount";
import { BODY_LIMIT_BYTES, NO_BODY } from "../http/request-body";
import { REQUEST_ID_HEADER, SANE_REQUEST_ID } from "../http/request-context";
import type { Route, RouteSpec } from "../http/route";
import { ErrorEnvelope } from "../schemas/envelopes";
import { components } from "../schemas/registry";
import { withExamples } from "./examples";
import { HEADERS, responseHeaders } from "./headers";
import { webhooks } from "./webhooks";

// Query parameters are strings on the wire; a parameter declared as an integer keeps only that.
const JSON_SCHEMA_OPTIONS = {
  io: "input",
  override: ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }) => {
    if (zodSchema._zod.def.type === "default") jsonSchema.default = zodSchema._zod.def.defaultValue;
  },
} as const;

// Operation tags, in the order of the endpoints; each needs a description (lint: tag-description).
/** The headers of a stored document's answer (RouteSpec `success.conditional`). */
const DOCUMENT_HEADERS = {
  ETag: {
    description: "Strong: the same document has the same ETag for ever (its bytes never change).",
    required: true,
    schema: { type: "string" },
  },
  "Content-Disposition": {
    description:
      "An attachment named after the document's number and format, e.g. " +
      '`attachment; filename="INV-2026-000001.xml"` or `"CN-2026-000001.pdf"`.',
    required: true,
    schema: { type: "string" },
  },
};

function schemaRef(schema: z.ZodMiniType): Record<string, unknown> {
  const id = components.get(schema)?.id;
  if (id) return { $ref: `#/components/schemas/${id}` };
  const { $schema: _, ...inline } = z.toJSONSchema(schema, JSON_SCHEMA_OPTIONS) as Record<string, unknown>;
  return inline;
}

type Properties = { properties?: Record<string, { description?: string }> };

function operation(spec: RouteSpec) {
  const { docs } = spec;
  const path = spec.params ? ((z.toJSONSchema(spec.params, JSON_SCHEMA_OPTIONS) as Properties).properties ?? {}) : {};
  const names = [...spec.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
  if (names.join() !== Object.keys(path).join())
    throw new Error(`${spec.operationId}: params must declare the parameters of ${spec.path}, in its order`);
  const parameters: unknown[] = Object.entries(path).map(([name, { description, ...schema }]) => ({
    name,
    in: "path",
    required: true,
    description,
    schema,
  }));
  const query = z.toJSONSchema(spec.query, JSON_SCHEMA_OPTIONS) as Properties;
  for (const [name, { description, ...schema }] of Object.entries(query.properties ?? {})) {
    parameters.push({ name, in: "query", required: false, description, schema });
  }
  if (keyed(spec)) {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "1-255 visible ASCII characters. A repeat of the same request (method, path and query string, customer, and " +
        "the body as JSON: spacing and key order aside) by the same principal within 24 h replays the first " +
        "response (with `Idempotent-Replayed: true`) and writes nothing; the same key with another request " +
        "answers 422 idempotency_key_reused.",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
  }
  parameters.push({
    name: REQUEST_ID_HEADER,
    in: "header",
    required: false,
    description:
      "The client's own request id (1-128 of `[A-Za-z0-9_.:@-]`), echoed in the response and logged; anything else " +
      "is replaced by a UUID.",
    schema: { type: "string", pattern: SANE_REQUEST_ID.source },
  });
  if (spec.access) {
    parameters.push({
      name: BOOKMARK_HEADER,
      in: "header",
      required: false,
      description:
        "A D1 bookmark from an earlier response: reads then see at least that state (read-your-writes across " +
        "replicas).",
      schema: { type: "string" },
    });
  }

  if (spec.success.conditional)
    parameters.push({
      name: "If-None-Match",
      in: "header",
      required: false,
      description: "The ETag of a copy the client holds: when it is the document's, the answer is 304 without a body.",
      schema: { type: "string" },
    });
  const responses: Record<string, unknown> = {
    [spec.success.status]: {
      description: docs.success,
      headers: { ...responseHeaders(spec, spec.success.status), ...(spec.success.conditional ? DOCUMENT_HEADERS : {}) },
      ...(spec.success.status === 204
        ? {}
        : {
            content: {
              [spec.success.mediaType ?? "application/json"]: { schema: schemaRef(spec.success.schema) },
              ...Object.fromEntries(
                Object.entries(spec.success.alternatives ?? {}).map(([type, schema]) => [type, { schema }]),
              ),
            },
          }),
    },
  };
  if (spec.success.conditional)
    responses[304] = {
      description: "Not modified: If-None-Match named the document's ETag; the client's copy is the document.",
      headers: { ...responseHeaders(spec, 304), ETag: DOCUMENT_HEADERS.ETag },
    };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorsOf(spec)) byStatus.set(ERRORS[code], [...(byStatus.get(ERRORS[code]) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_TEXTS[code]}`).join(" "),
      headers: responseHeaders(spec, status),
      content: { "application/json": { schema: schemaRef(ErrorEnvelope) } },
    };
  }

  return {
    operationId: spec.operationId,
    summary: docs.summary,
    ...(docs.description ? { description: docs.description } : {}),
    tags: [spec.tag],
    // Alternatives: the route's scope, or (a back-office token naming no customer) `acrossCustomers`.
    security: spec.access
      ? [spec.access.scope, ...(spec.access.acrossCustomers ? [spec.access.acrossCustomers] : [])].map((scope) => ({
          bearerAuth: [scope],
        }))
      : [],
    ...(spec.access ? { "x-required-scope": spec.access.scope, "x-requires-customer": spec.access.tenant } : {}),
    ...(spec.access?.acrossCustomers ? { "x-across-customers-scope": spec.access.acrossCustomers } : {}),
    parameters,
    ...(spec.upload
      ? {
          requestBody: {
            required: true,
            description: `The file itself, at most ${spec.upload.limit / 1024 / 1024} MiB.`,
            content: Object.fromEntries(
              spec.upload.mediaTypes.map((type) => [type, { schema: { type: "string", format: "binary" } }]),
            ),
          },
        }
      : {}),
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

/** The scopes the routes ask for, each once, sorted. */
const scopesOf = (routes: readonly Route[]) =>
  [...new Set(routes.flatMap(({ spec }) => (spec.access ? [spec.access.scope] : [])))].sort();

/** Each tag in the order its routes come, described by the one route of it whose docs carry `tag`. */
function tagsOf(routes: readonly Route[]) {
  return [...new Set(routes.map(({ spec }) => spec.tag))].map((name) => {
    const described = routes.flatMap(({ spec }) =>
      spec.tag === name && spec.docs.tag !== undefined ? [spec.docs.tag] : [],
    );
    if (described.length !== 1)
      throw new Error(`Tag ${name}: ${described.length} routes describe it; one must (\`docs.tag\` in its spec)`);
    return { name, description: described[0] };
  });
}

/**
 * The OpenAPI 3.1 document of the route table (src/app.ts), built from the same specs and schemas that
 * the Workers mount and validate with, and the prose of each spec (`docs`).
 */
export function openApiDocument(routes: readonly Route[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { spec } of routes) (paths[spec.path] ??= {})[spec.method] = operation(spec);

  const { schemas } = z.toJSONSchema(components, {
    ...JSON_SCHEMA_OPTIONS,
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Record<string, unknown>> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  withExamples(schemas);

  return {
    openapi: "3.1.0",
    info: {
      title: "Invoices, card orders and notification tokens",
      version: "1.0.0",
      contact: { name: "Voucher Cards GmbH" },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      description:
        "Bearer JWTs carry `sub`, `customer_id` and space-separated `scope`, all strings: a claim of another type " +
        "makes the token invalid (401). Lists take `page` (from 1) and `page_size` (1-100, default 25) and are " +
        "newest first; their `next`, `prev` and `last` links add a signed `cursor`, so following them costs a " +
        "page at any depth. Every error is the envelope `{errors: [{detail, code, source}]}`. POSTs accept an " +
        "`Idempotency-Key`. Responses carry `x-d1-bookmark`; echo it to read your own writes. Amounts are " +
        "decimal strings with two places (EUR), never numbers. Each step of a card order and of an invoice (its " +
        "creation too), each change of a billing profile and each payment or return is an event (GET /events; " +
        "creating a draft, its entries, devices and webhook endpoints emit none), delivered to webhook endpoints " +
        "as the `webhooks` section describes.",
    },
    servers: [{ url: "/" }],
    tags: tagsOf(routes),
    paths,
    webhooks: webhooks(schemas.Event as { properties: Record<string, unknown> }),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          // OpenAPI 3.1 lets a non-OAuth scheme's requirement list role names: here, the scope.
          description:
            `HS256 (or, when configured, RS256/ES256 from a JWK set) with \`sub\`, \`customer_id\` and ` +
            `\`exp\`. Its space-separated \`scope\` claim must hold the scope an operation's security requirement ` +
            `names: ${scopesOf(routes)
              .map((scope) => `\`${scope}\``)
              .join(", ")}.`,
        },
      },
      headers: HEADERS,
      schemas,
    },
  };
}
