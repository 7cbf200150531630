import { describe, expect, it } from "vitest";
import { isPassedOn } from "../src/http/pass-on";
import { apiEndpoints } from "../src/routes/api";
import { jobsEndpoints } from "../src/routes/jobs";

// src/http/pass-on.ts names by path what the API Worker passes on to the jobs Worker: it must agree
// with the route table, or a route would answer 404 (mounted where its requests never arrive) or
// never reach the API Worker's own routes.
const concrete = (path: string) => path.replace(/\{\w+\}/g, "0196f0a0-0000-4000-8000-000000000000");

describe("the requests the API Worker passes on", () => {
  it.each(jobsEndpoints.map(({ spec }) => [spec.method.toUpperCase(), spec.path]))(
    "%s %s is passed on to the jobs Worker",
    (_, path) => expect(isPassedOn(concrete(path))).toBe(true),
  );
  it.each(apiEndpoints.map(({ spec }) => [spec.method.toUpperCase(), spec.path]))(
    "%s %s stays with the API Worker",
    (_, path) => expect(isPassedOn(concrete(path))).toBe(false),
  );
  it("takes whole path segments only", () => {
    expect(isPassedOn("/bank_statements")).toBe(true);
    expect(isPassedOn("/bank_statements/x")).toBe(true);
    expect(isPassedOn("/bank_statementsx")).toBe(false);
    expect(isPassedOn("/invoices/x/payments/")).toBe(false);
    expect(isPassedOn("/invoices/x/y/payments")).toBe(false);
    expect(isPassedOn("/invoices/x")).toBe(false);
  });
});
