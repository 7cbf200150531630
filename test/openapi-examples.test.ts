import { describe, expect, it } from "vitest";
import { endpoints } from "../src/app";
import { openApiDocument } from "../src/openapi/document";

// /docs shows the examples of the OpenAPI document's components (src/openapi/examples.ts), which the
// build parses with each component's schema. Here: every component has one, its fields in the order
// of the schema (docs/api.md part 1: field order matters, a parse does not see it), every JSON answer
// and body of an operation reaches one, and the prose says what docs/api.md says.
const document = JSON.parse(JSON.stringify(openApiDocument(endpoints)));
type Schema = { properties?: Record<string, Schema>; examples?: unknown[]; $ref?: string; items?: Schema };
const schemas: Record<string, Schema> = document.components.schemas;
const nameOf = (ref: string) => ref.replace("#/components/schemas/", "");

/** Where `example`'s field order differs from `schema`'s, down through objects and arrays. */
function orderGaps(schema: Schema, example: unknown, path: string): string[] {
  const resolved = schema.$ref ? schemas[nameOf(schema.$ref)]! : schema;
  if (Array.isArray(example) && resolved.items)
    return example.flatMap((item, i) => orderGaps(resolved.items!, item, `${path}[${i}]`));
  if (example === null || typeof example !== "object" || !resolved.properties) return [];
  // In the schema's order; only a request body leaves out what is optional (an answer has every field:
  // the build's parse holds that).
  const [keys, fields] = [Object.keys(example), Object.keys(resolved.properties)];
  const inOrder = fields.filter((field) => keys.includes(field));
  if (keys.join() !== inOrder.join()) return [`${path}: ${keys.join()} is not in the order ${fields.join()}`];
  return keys.flatMap((key) =>
    orderGaps(resolved.properties![key]!, (example as Record<string, unknown>)[key], `${path}.${key}`),
  );
}

describe("the OpenAPI document's examples", () => {
  it("gives every component one example, its fields in the schema's order", () => {
    expect(Object.entries(schemas).filter(([, schema]) => schema.examples?.length !== 1)).toStrictEqual([]);
    expect(
      Object.entries(schemas).flatMap(([name, schema]) => orderGaps(schema, schema.examples![0], name)),
    ).toStrictEqual([]);
  });

  it("reaches an example from every JSON answer and body of every operation", () => {
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>))
      for (const [method, operation] of Object.entries(operations)) {
        type Content = { content?: Record<string, { schema: Schema }> };
        const contents = [
          ...Object.values(operation.responses as Record<string, Content>),
          ...(operation.requestBody ? [operation.requestBody as Content] : []),
        ].flatMap(({ content }) => Object.entries(content ?? {}));
        for (const [type, { schema }] of contents) {
          if (type !== "application/json" || (path === "/openapi.json" && method === "get")) continue;
          if (!schema.$ref || !schemas[nameOf(schema.$ref)]?.examples) missing.push(`${method} ${path} ${type}`);
        }
      }
    expect(missing).toStrictEqual([]);
  });

  it("shows real values, not a generator's", () => {
    const text = JSON.stringify(Object.values(schemas).map((schema) => schema.examples));
    expect(text).not.toMatch(/"string"|"00000000-0000/);
    expect(schemas.CardOrderList!.examples![0]).toMatchObject({
      data: [{ state: "submitted", invoice: { number: "INV-2026-000001" } }],
      links: { self: "https://billing.example.com/card_orders", next: null },
    });
  });
});

describe("the OpenAPI document's prose", () => {
  it("dates an invoice in BUSINESS_TIME_ZONE, and names the changes that emit no event", () => {
    const create = document.paths["/invoices"].post.description;
    expect(create).toContain("today in BUSINESS_TIME_ZONE");
    expect(create).not.toContain("UTC");
    expect(document.info.description).toContain(
      "creating a draft, its entries, devices and webhook endpoints emit none",
    );
    expect(document.info.description).not.toContain("Every change is an event");
  });
});
