import * as z from "zod/mini";

/** Schemas that appear by name under the OpenAPI document's `components.schemas`. */
export const components = z.registry<{ id: string; description?: string }>();

export function named<T extends z.ZodMiniType>(id: string, schema: T, description?: string): T {
  components.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}

/**
 * A named response shape, built on first use. The Worker never parses its own responses: these
 * schemas type the handlers, make the OpenAPI document's components and check the tests' answers,
 * so a cold start need not build them (about half of its zod schemas; BENCHMARKS.md).
 */
export const namedResponse = <T extends z.ZodMiniType>(id: string, build: () => T, description?: string) =>
  named(id, z.lazy(build), description);

/**
 * A named request body, built on the first request that sends one: a cold start that answers a GET
 * builds none of them. The same schema, parsed through `z.lazy`: same issues, same document.
 */
export const namedRequest = <T extends z.ZodMiniType>(id: string, build: () => T) => named(id, z.lazy(build));
