import * as z from "zod/mini";
import { isId } from "../domain/ids";
import { formatCents } from "../domain/money";
import { NOT_XML } from "../domain/text";
import { deferred } from "./registry";

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

/**
 * An optional string of 1 to `max` characters that can reach an e-invoice; `null` or an absent field
 * means none. Decision (docs/api.md part 5): "" is refused, not stored, so that none has one spelling;
 * a form, or /docs' "Test Request", sends "" for a field left blank.
 */
export const optionalText = (max: number) =>
  z.optional(
    z.nullable(
      text(
        "a string or null",
        false,
        max,
        z.refine((s) => s.length > 0, "must not be empty; send null or leave it out"),
        xmlCarriable(),
      ).register(z.globalRegistry, { minLength: 1, maxLength: max }),
    ),
  );

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
// two decimals, from 0.00 to MAX_AMOUNT_CENTS (an entry's, a fee's), or to a larger most (a payment's).
const AMOUNT = /^(0|[1-9][0-9]{0,10})\.[0-9]{2}$/;
export const MAX_AMOUNT_CENTS = 1_000_000;
/** The most a payment can be: more than any invoice (500 cards of 10,000.00 and their fees). */
export const MAX_PAYMENT_CENTS = 100_000_000_000;

/** Cents of an amount as written, such as "1234.50", or undefined when it is not one (or above `max`). */
export function parseAmount(text: string, max = MAX_AMOUNT_CENTS): number | undefined {
  const cents = AMOUNT.test(text) ? Number(text.replace(".", "")) : Number.NaN;
  return cents <= max ? cents : undefined;
}

/**
 * An amount in a request: from `min` to `max`, never a JSON number (docs/api.md part 12); the handler
 * gets cents.
 */
export const amountInput = (minCents: number, maxCents = MAX_AMOUNT_CENTS) =>
  z.pipe(
    z
      .string({ error: 'must be a decimal string such as "25.00", not a number' })
      .check(
        z.refine(
          (s) => (parseAmount(s, maxCents) ?? -1) >= minCents,
          `must be a decimal string from "${formatCents(minCents)}" to "${formatCents(maxCents)}" ` +
            'with two places, e.g. "25.00"',
        ),
      )
      .register(z.globalRegistry, {
        pattern: `^(0|[1-9][0-9]{0,${String(maxCents).length - 3}})\\.[0-9]{2}$`,
        examples: ["25.00"],
      }),
    z.transform((s: string) => parseAmount(s, maxCents)!),
  );

/**
 * A path parameter that names one of the customer's `what`s by its id. Anything else names none: 404
 * "No such `what`." without a database read (the message is `what`: http/mount.ts). Built on the
 * first request that names one, not at every cold start.
 */
export const pathId = (what: string) => deferred(() => z.string().check(z.refine(isId, what)));

/** One of a fixed set of strings. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of: ${values.join(", ")}` });

/** A JSON object with exactly these fields: an unknown field is refused (typos do not pass silently). */
export const requestBody = <Shape extends z.core.$ZodShape>(shape: Shape) => z.strictObject(shape);
