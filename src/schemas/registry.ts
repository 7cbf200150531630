import * as z from "zod/mini";

/** Schemas that appear by name under the OpenAPI document's `components.schemas`. */
export const components = z.registry<{ id: string; description?: string }>();

/**
 * Stands for `z.lazy(build)` without making it at import: the lazy schema is made on the first look at
 * the stand-in (its `_zod`, a method such as `safeParse`), which the Worker takes only for what a
 * request sends (a body, a parameter) and never for a response shape; the document's build and the
 * tests look at all of them. Made at every cold start, the lazies alone took about a tenth of the API
 * Worker's start-up. Everything reads through to the one lazy schema, so a registry knows the stand-in
 * by its identity.
 */
export function deferred<T extends z.ZodMiniType>(build: () => T): z.ZodMiniLazy<T> {
  let made: z.ZodMiniLazy<T> | undefined;
  const schema = () => (made ??= z.lazy(build));
  // zod reads a schema's properties (`_zod`, its methods; its instanceof reads `_zod` too), nothing else.
  return new Proxy({} as z.ZodMiniLazy<T>, { get: (_, key) => Reflect.get(schema(), key) });
}

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
  named(id, deferred(build), description);

/**
 * A named request body, built on the first request that sends one: a cold start that answers a GET
 * builds none of them. The same schema, parsed through `z.lazy`: same issues, same document.
 */
export const namedRequest: <T extends z.ZodMiniType>(id: string, build: () => T) => z.ZodMiniLazy<T> = namedResponse;
