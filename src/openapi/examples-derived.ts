import type * as z from "zod/mini";
import { components } from "../schemas/registry";

// What the examples of src/openapi/examples.ts leave out, derived from the schemas: a nullable field
// shown as null, an endpoint's own shape picked from its resource's example.

/**
 * The example of a response component that `given` lacks, picked from the item of `ITEMS` whose name
 * begins its own (`CardOrderSummary` from `CardOrder`): its same-named fields, a nullable one it lacks as null. An
 * endpoint's own shape, a pick of its resource's fields (`resource<Pick<Row, ...>>()`), needs no example
 * of its own; one with a field the item lacks that cannot be null still fails the build, naming it.
 */
export function picked(items: Record<string, unknown>, given: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [id, schema] of components._idmap) {
    if (id in given || id.endsWith("Data")) continue;
    const base = Object.keys(items)
      .filter((name) => id.startsWith(name) && id !== name)
      .sort((a, b) => b.length - a.length)[0];
    const shape = defOf(schema as unknown as Zod).shape;
    if (base === undefined || shape === undefined) continue;
    const item = items[base] as Record<string, unknown>;
    const example = Object.fromEntries(Object.keys(shape).flatMap((key) => (key in item ? [[key, item[key]]] : [])));
    complete(schema, example);
    out[id] = example;
  }
  return out;
}

type Zod = { _zod: { def: { type: string; shape?: Record<string, Zod> }; innerType: Zod } };
const defOf = (schema: Zod): Zod["_zod"]["def"] =>
  schema._zod.def.type === "lazy" ? defOf(schema._zod.innerType) : schema._zod.def;

/**
 * A resource's example with each nullable field it lacks shown as null, in the schema's field order: a
 * nullable field added to a resource needs no edit here (one the schema does not let be null still
 * fails the parse, naming it). In place, as the lists and the events hold the same objects; an example
 * that lacks nothing is left as it is.
 */
export function complete(schema: z.core.$ZodType, example: Record<string, unknown>): void {
  const shape = defOf(schema as unknown as Zod).shape;
  if (shape === undefined || typeof example !== "object" || example === null) return;
  const lacking = Object.keys(shape).filter((key) => !(key in example) && defOf(shape[key]!).type === "nullable");
  if (lacking.length === 0) return;
  const given = { ...example };
  for (const key of Object.keys(given)) delete example[key];
  for (const key of Object.keys(shape)) if (key in given || lacking.includes(key)) example[key] = given[key] ?? null;
  for (const key of Object.keys(given)) if (!(key in example)) example[key] = given[key];
}
