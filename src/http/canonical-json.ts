// One text per JSON value: the keys of every object in sorted order, no whitespace, and what
// JSON.stringify makes of strings and numbers. Two texts that parse to the same value (however they
// are spaced, ordered, escaped or spell a number: 1 and 1.0) give the same string; a different
// value or type (1 and "1") does not.
const sortedKeys = (_key: string, value: unknown): unknown =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, (value as Record<string, unknown>)[key]]),
      )
    : value;

/** `value` is parsed JSON, or an array holding some. */
export const canonicalJson = (value: unknown): string => JSON.stringify(value, sortedKeys);
