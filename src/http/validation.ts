import * as z from "zod/mini";
import type { ErrorItem } from "../errors";

// Request-body schemas. Lengths count characters (code points), as JSON Schema's maxLength does,
// not UTF-16 units as String.length would.

const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

function string(type: string, required: boolean, max: number, ...extra: z.core.$ZodCheck<string>[]) {
  return z
    .string({ error: `must be ${type}` })
    .check(
      z.refine((s) => s.isWellFormed(), "must be valid Unicode text (no unpaired surrogates)"),
      z.refine((s) => !required || s.length > 0, "must not be empty"),
      z.refine((s) => codePoints(s) <= max, `must be at most ${max} characters`),
      ...extra,
    )
    .register(z.globalRegistry, { minLength: required ? 1 : undefined, maxLength: max });
}

/** A required, non-empty string of at most `max` characters. */
export const requiredText = (max: number) => string("a string", true, max);

/** A required string that will name a resource in a URL path: `.` and `..` cannot (URLs resolve them away). */
export const pathSegmentText = (max: number) =>
  string("a string", true, max, z.refine((s) => s !== "." && s !== "..", 'must not be "." or "..", which no URL path can name'));

/** An optional string of at most `max` characters; `null` means none. */
export const optionalText = (max: number) => z.optional(z.nullable(string("a string or null", false, max)));

/** One of a fixed set of strings. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: `must be one of: ${values.join(", ")}` });

/** A JSON object with exactly these fields: an unknown field is refused (typos do not pass silently). */
export const requestBody = <Shape extends z.core.$ZodShape>(shape: Shape) => z.strictObject(shape);

export type RequestSchema = z.ZodMiniType<unknown, unknown>;

const pointerOf = (path: PropertyKey[]): string => "/" + path.map((key) => String(key).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/** Enough to correct a request; a body of thousands of unknown fields must not echo them all. */
export const MAX_REPORTED_ERRORS = 20;

/** Validates a parsed JSON object: the value, or one error per offending field with its pointer. */
export function validate<T>(schema: z.ZodMiniType<T, unknown>, input: Record<string, unknown>): { data: T } | { errors: [ErrorItem, ...ErrorItem[]] } {
  const result = schema.safeParse(input);
  if (result.success) return { data: result.data };
  const errors = new Map<string, ErrorItem>();
  const add = (path: PropertyKey[], detail: string) => {
    const pointer = pointerOf(path);
    if (!errors.has(pointer)) errors.set(pointer, { detail, code: "validation_failed", source: { pointer } });
  };
  for (const issue of result.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) add([...issue.path, key], `${JSON.stringify(key)} is not a known field.`);
      continue;
    }
    const field = issue.path.map(String).join(".");
    const missing = issue.path.length === 1 && input[issue.path[0] as string] === undefined;
    add(issue.path, missing ? `${field} is required.` : `${field} ${issue.message}.`);
  }
  return { errors: [...errors.values()].slice(0, MAX_REPORTED_ERRORS) as [ErrorItem, ...ErrorItem[]] };
}
