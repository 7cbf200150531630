import { expect } from "vitest";
import type * as z from "zod/mini";
import { endpoints } from "../../src/app";
import { NO_CONTENT, type RouteSpec } from "../../src/http/route";

// The response schemas of the routes are the one truth of every resource's shape: the OpenAPI
// document publishes them, the serializers are typed by them, and every success a test receives is
// held against them here, fields, types and field order alike.

type Def = {
  type: string;
  shape?: Record<string, z.ZodMiniType>;
  catchall?: z.ZodMiniType;
  innerType?: z.ZodMiniType;
  element?: z.ZodMiniType;
  options?: z.ZodMiniType[];
  entries?: Record<string, string>;
};
// Response schemas are built on first use (schemas/registry.ts): a lazy one stands for what it builds.
export const defOf = (schema: z.ZodMiniType): Def => {
  const { def, innerType } = (schema as unknown as { _zod: { def: Def; innerType: z.ZodMiniType } })._zod;
  return def.type === "lazy" ? defOf(innerType) : def;
};

/** The fields of an object schema, in order. */
export const fieldsOf = (schema: z.ZodMiniType): string[] => Object.keys(defOf(schema).shape ?? {});

/** Field order matters (docs/api.md part 1): the keys of every object in `value` in its schema's order. */
function keyOrderErrors(schema: z.ZodMiniType, value: unknown, path: string): string[] {
  const def = defOf(schema);
  if (value === null || value === undefined) return [];
  switch (def.type) {
    case "nullable":
    case "optional":
    case "default":
      return keyOrderErrors(def.innerType!, value, path);
    case "array":
      return (value as unknown[]).flatMap((item, i) => keyOrderErrors(def.element!, item, `${path}[${i}]`));
    case "union":
      // The option the value satisfies decides the order.
      return keyOrderErrors(
        def.options!.find((option) => option.safeParse(value).success) ?? def.options![0]!,
        value,
        path,
      );
    case "object": {
      // Only a strict object fixes its fields (the document at /openapi.json has more than `openapi`).
      const strict = def.catchall !== undefined && defOf(def.catchall).type === "never";
      const expected = Object.keys(def.shape!);
      const actual = Object.keys(value as object);
      const own =
        !strict || JSON.stringify(actual) === JSON.stringify(expected)
          ? []
          : [`${path}: fields ${actual.join(",")} instead of ${expected.join(",")}`];
      return [
        ...own,
        ...expected.flatMap((key) =>
          keyOrderErrors(def.shape![key]!, (value as Record<string, unknown>)[key], `${path}.${key}`),
        ),
      ];
    }
    default:
      return [];
  }
}

/** Asserts that `value` is exactly what `schema` describes: strict fields, types, and field order. */
export function expectShape(schema: z.ZodMiniType, value: unknown, what = "$"): void {
  const parsed = schema.safeParse(value);
  expect(
    parsed.success ? [] : parsed.error.issues.map((issue) => `${what}.${issue.path.join(".")}: ${issue.message}`),
    `the shape of ${what}`,
  ).toStrictEqual([]);
  expect(keyOrderErrors(schema, value, what), `the field order of ${what}`).toStrictEqual([]);
}

const routes = endpoints.map(({ spec }) => ({
  spec,
  pattern: new RegExp(`^${spec.path.replace(/\{\w+\}/g, "[^/]+")}$`),
}));

/** The route that answers `method` on `path`, if any. */
export function routeOf(method: string, path: string): RouteSpec | undefined {
  const verb = method.toLowerCase() === "head" ? "get" : method.toLowerCase();
  return routes.find(({ spec, pattern }) => spec.method === verb && pattern.test(path))?.spec;
}

/** Holds a success response against its route's success schema (a clone: the caller reads the body). */
export async function checkSuccess(request: Request, response: Response): Promise<void> {
  const { pathname } = new URL(request.url);
  const spec = routeOf(request.method, pathname);
  if (!spec || response.status !== spec.success.status || request.method === "HEAD") return;
  if (spec.success.schema === NO_CONTENT) {
    expect(await response.clone().text(), `${request.method} ${pathname} answers no body`).toBe("");
    return;
  }
  if (spec.success.mediaType) return;
  expectShape(spec.success.schema, await response.clone().json(), `${request.method} ${pathname}`);
}

/**
 * A value of `schema`, the plainest there is: null where null is allowed, the first of a set, "", 0,
 * true, [], and objects of such. Fixtures start from it, so that a field added to a resource joins them
 * (as null) without editing each.
 */
export function sampleOf<S extends z.ZodMiniType>(schema: S): z.input<S> {
  const def = defOf(schema);
  switch (def.type) {
    case "nullable":
      return null as z.input<S>;
    case "optional":
    case "default":
      return sampleOf(def.innerType!) as z.input<S>;
    case "object":
      return Object.fromEntries(Object.entries(def.shape!).map(([key, field]) => [key, sampleOf(field)])) as z.input<S>;
    case "array":
      return [] as z.input<S>;
    case "union":
      return sampleOf(def.options![0]!) as z.input<S>;
    case "enum":
      return Object.values(def.entries!)[0] as z.input<S>;
    case "literal":
      return (def as unknown as { values: unknown[] }).values[0] as z.input<S>;
    case "boolean":
      return true as z.input<S>;
    case "int":
    case "number":
      return 0 as z.input<S>;
    default:
      return "" as z.input<S>;
  }
}

/** `schema` without its optional and nullable wrappers: what a field holds when it is set. */
const setOf = (schema: z.ZodMiniType): z.ZodMiniType => {
  const def = defOf(schema);
  return ["nullable", "optional", "default"].includes(def.type) ? setOf(def.innerType!) : schema;
};

/**
 * Every optional field of a request body set (a text to its own name, a set to its first, other types as
 * `sampleOf`): a story that sends it sees each field a client may leave out set at least once, so that a
 * field added to the body is seen set without an edit of the story.
 */
export function everyOptionalSet(body: z.ZodMiniType): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(defOf(body).shape ?? {})
      .filter(([, field]) => defOf(field).type === "optional")
      .map(([key, field]) => [key, defOf(setOf(field)).type === "string" ? key : sampleOf(setOf(field))]),
  );
}
