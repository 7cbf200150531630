import * as z from "zod/mini";
import { isId } from "../domain/ids";
import { formatCents } from "../domain/money";
import { NOT_XML } from "../domain/text";

// The wire formats of docs/api.md part 1, for request and response schemas alike. Lengths count
// characters (code points), as JSON Schema's maxLength does, not UTF-16 units as String.length would.

export const dateTime = () =>
  z.string().register(z.globalRegistry, { format: "date-time", examples: ["2026-11-22T09:15:30.123Z"] });
export const date = () => z.string().register(z.globalRegistry, { format: "date", examples: ["2026-11-22"] });

/** An amount of EUR as the wire shows it: a decimal string with two places (docs/api.md part 1). */
export const money = () =>
  z.string().register(z.globalRegistry, { pattern: "^(0|[1-9][0-9]*)\\.[0-9]{2}$", examples: ["119.00"] });

const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

function text(type: string, required: boolean, max: number, ...extra: z.core.$ZodCheck<string>[]) {
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
export const requiredText = (max: number, ...extra: z.core.$ZodCheck<string>[]) =>
  text("a string", true, max, ...extra);

/**
 * Customer text that can reach an e-invoice refuses what XML 1.0 cannot carry (docs/api.md part 14):
 * stored, it would leave the invoice a document no receiver accepts.
 */
export const xmlCarriable = () =>
  z.refine<string>(
    (s) => !NOT_XML.test(s),
    "must not hold characters an e-invoice (XML 1.0) cannot carry: control characters other than tab, " +
      "line feed and carriage return, U+FFFE, U+FFFF",
  );

/** A required string that will name a resource in a URL path: `.` and `..` cannot (URLs resolve them away). */
export const pathSegmentText = (max: number) =>
  text(
    "a string",
    true,
    max,
    z.refine((s) => s !== "." && s !== "..", 'must not be "." or "..", which no URL path can name'),
  );

/** An optional string of at most `max` characters that can reach an e-invoice; `null` means none. */
export const optionalText = (max: number) =>
  z.optional(z.nullable(text("a string or null", false, max, xmlCarriable())));

// What a name printed on a card and shown in a push may not hold (docs/api.md part 12): control (Cc),
// format (Cf: bidirectional overrides, zero-width characters, the byte-order mark), line and
// paragraph separators (Zl, Zp), private-use (Co) and unassigned (Cn) characters.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]/u;
const EDGE_SPACE = /^\p{White_Space}|\p{White_Space}$/u;

const printable = (type: string, max: number, extra: z.core.$ZodCheck<string>[]) =>
  text(
    type,
    true,
    max,
    z.refine((s) => !EDGE_SPACE.test(s), "must not be blank or begin or end with whitespace"),
    z.refine(
      (s) => !UNPRINTABLE.test(s),
      "must hold only printable characters (no control or format characters such as a zero-width space)",
    ),
    ...extra,
  );

/**
 * A required name that people read, of 1 to `max` characters: not blank, no space at either end,
 * nothing unprintable.
 */
export const printableText = (max: number, ...extra: z.core.$ZodCheck<string>[]) => printable("a string", max, extra);

/** As printableText, but optional: `null` or an absent field means none. */
export const optionalPrintableText = (max: number, ...extra: z.core.$ZodCheck<string>[]) =>
  z.optional(z.nullable(printable("a string or null", max, extra)));

// An amount as it is written, in a request or a fee variable (docs/api.md part 12): no leading zeros,
// two decimals, from 0.00 to MAX_AMOUNT_CENTS.
const AMOUNT = /^(0|[1-9][0-9]{0,4})\.[0-9]{2}$/;
export const MAX_AMOUNT_CENTS = 1_000_000;

/** Cents of an amount as written, such as "1234.50", or undefined when it is not one (or above the most). */
export function parseAmount(text: string): number | undefined {
  const cents = AMOUNT.test(text) ? Number(text.replace(".", "")) : Number.NaN;
  return cents <= MAX_AMOUNT_CENTS ? cents : undefined;
}

/**
 * An amount in a request: from `min` to the most, never a JSON number (docs/api.md part 12); the
 * handler gets cents.
 */
export const amountInput = (minCents: number) =>
  z.pipe(
    z
      .string({ error: 'must be a decimal string such as "25.00", not a number' })
      .check(
        z.refine(
          (s) => (parseAmount(s) ?? -1) >= minCents,
          `must be a decimal string from "${formatCents(minCents)}" to "${formatCents(MAX_AMOUNT_CENTS)}" ` +
            'with two places, e.g. "25.00"',
        ),
      )
      .register(z.globalRegistry, { pattern: AMOUNT.source, examples: ["25.00"] }),
    z.transform((s: string) => parseAmount(s)!),
  );

/**
 * A path parameter that names one of the customer's `what`s by its id. Anything else names none: 404
 * "No such `what`." without a database read (the message is `what`: http/mount.ts).
 */
export const pathId = (what: string) => z.string().check(z.refine(isId, what));

/** One of a fixed set of strings. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of: ${values.join(", ")}` });

/** A JSON object with exactly these fields: an unknown field is refused (typos do not pass silently). */
export const requestBody = <Shape extends z.core.$ZodShape>(shape: Shape) => z.strictObject(shape);
