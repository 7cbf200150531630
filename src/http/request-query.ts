import type { Context } from "hono";
import * as z from "zod/mini";
import { ApiError } from "../errors";

/** The query schema of a route that reads no query parameters (any that are sent are ignored). */
export const NO_QUERY = z.object({});

export type QuerySchema = z.ZodMiniObject<z.core.$ZodLooseShape>;

const invalid = (name: string, detail: string) => ApiError.of("invalid_parameter", detail, { parameter: name });

// An absent parameter reads the same every time (its default, or nothing): checked once per field.
// (The defaults are numbers; a default made per call would need a fresh parse.)
const whenAbsent = new WeakMap<z.ZodMiniType, ReturnType<z.ZodMiniType["safeParse"]>>();

function check(field: z.ZodMiniType, value: string | undefined) {
  if (value !== undefined) return field.safeParse(value);
  let checked = whenAbsent.get(field);
  if (!checked) whenAbsent.set(field, (checked = field.safeParse(undefined)));
  return checked;
}

/**
 * Reads the query parameters a route declares. Each may appear once; they are checked in the
 * schema's order and the first one at fault answers 400. Parameters the route does not declare
 * are ignored (and kept in list links).
 */
export function readQuery<Q extends QuerySchema>(c: Context, schema: Q): z.output<Q> {
  // Parsed once: each c.req.queries(name) would parse the whole query again.
  const sent = c.req.queries();
  const read: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.shape)) {
    const values = sent[name] ?? [];
    if (values.length > 1) throw invalid(name, `${name} must be given once.`);
    // The fields are independent, so the object is the fields' outputs (defaults applied).
    const checked = check(field as z.ZodMiniType, values[0]);
    if (!checked.success) throw invalid(name, `${name} ${checked.error.issues[0]?.message ?? "is not allowed"}.`);
    if (checked.data !== undefined) read[name] = checked.data;
  }
  return read as z.output<Q>;
}
