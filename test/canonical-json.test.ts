import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../src/http/canonical-json";

// The Idempotency-Key fingerprint holds the body as JSON (http/idempotency-key.ts): the same value
// however it is written gives one text, and that text gives the value back, so different values differ.

const RUNS = 1_000;
/** JSON as the Worker sees it: parsed from text (so -0 is 0). */
const parsedJson = fc.jsonValue({ maxDepth: 5 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);

/** The same value with the keys of every object rotated by `shift`. */
function reordered(value: unknown, shift: number): unknown {
  if (Array.isArray(value)) return value.map((item) => reordered(item, shift));
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  const rotated = keys.map((_, i) => keys[(i + shift) % keys.length]!);
  return Object.fromEntries(rotated.map((key) => [key, reordered((value as Record<string, unknown>)[key], shift)]));
}

describe("canonicalJson", () => {
  it("gives one text for a value whatever its key order and spacing, at every depth", () => {
    fc.assert(
      fc.property(parsedJson, fc.nat(), fc.constantFrom(0, 1, 2, "\t"), (value, shift, indent) => {
        const respelled = JSON.parse(JSON.stringify(reordered(value, shift), null, indent));
        expect(canonicalJson(respelled)).toBe(canonicalJson(value));
      }),
      { numRuns: RUNS },
    );
  });

  it("gives the value back, so two texts are the same only for the same value", () => {
    fc.assert(
      fc.property(parsedJson, (value) => {
        expect(JSON.parse(canonicalJson(value))).toStrictEqual(value);
      }),
      { numRuns: RUNS },
    );
  });

  it.each([
    ['{"a":{"b":1,"c":[{"d":2,"e":3}]}}', '{ "a": { "c": [ { "e": 3, "d": 2 } ], "b": 1 } }'],
    ['{"n":1}', '{"n":1.0}'],
    ['{"n":100}', '{"n":1e2}'],
    ['{"s":"é"}', '{"s":"\\u00e9"}'],
    ['{"1":0,"a":0}', '{"a":0,"1":0}'],
  ])("writes %s and %s the same", (a, b) => {
    expect(canonicalJson(JSON.parse(a))).toBe(canonicalJson(JSON.parse(b)));
  });

  it.each([
    ['{"n":1}', '{"n":"1"}'],
    ['{"b":true}', '{"b":"true"}'],
    ['{"v":null}', "{}"],
    ['{"v":null}', '{"v":"null"}'],
    ['{"v":[]}', '{"v":{}}'],
    ["[1,2]", "[2,1]"],
  ])("tells %s from %s", (a, b) => {
    expect(canonicalJson(JSON.parse(a))).not.toBe(canonicalJson(JSON.parse(b)));
  });
});
