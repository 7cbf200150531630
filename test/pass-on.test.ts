import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { endpoints } from "../src/app";
import { appOf } from "../src/http/app";
import type { Endpoint } from "../src/http/route";
import api from "../src/index";
import jobs from "../src/jobs/index";
import { ROUTES, routeName } from "./support/routes";

// The route table (src/app.ts) names the Worker of each route; the API Worker passes on, unread, the
// requests of the jobs Worker's routes (src/http/pass-on.ts) and answers the others itself. A route
// mounted where its requests never arrive would answer 404; one passed on that the jobs Worker does
// not serve, too.
const ID = "0196f0a0-0000-4000-8000-000000000000";
const concrete = (path: string) => path.replace(/\{\w+\}/g, ID);
const JOBS_ROUTES = ROUTES.filter((spec) => spec.worker === "jobs");
const API_ROUTES = ROUTES.filter((spec) => spec.worker === undefined);

/** A Worker's fetch, in method syntax: it takes the Request a test builds. */
interface Entry {
  fetch(request: Request, env: Cloudflare.Env, ctx: ExecutionContext): Promise<Response>;
}

/** `worker`'s answer to `request`, with the test bindings. */
async function answer(worker: Entry, request: Request, bindings: Partial<Cloudflare.Env> = {}) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, ...bindings }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** The API Worker's answer to `request`, with a JOBS binding that records what reaches it. */
async function dispatch(request: Request) {
  const passed: Request[] = [];
  const jobsAnswer = new Response("the jobs Worker's answer");
  const JOBS = {
    fetch: async (reached: Request) => {
      passed.push(reached);
      return jobsAnswer;
    },
  } as unknown as Fetcher;
  return { passed, response: await answer(api as Entry, request, { JOBS }), jobsAnswer };
}

/** A request of `spec`'s method to its path; a write carries a body, which must reach the jobs Worker unread. */
const requestOf = (method: string, path: string) =>
  new Request(`https://api.test${path}?page=2`, {
    method,
    ...(method === "GET" || method === "HEAD" ? {} : { body: "<Document/>", headers: { "Content-Type": "text/xml" } }),
  });

describe("the requests the API Worker passes on", () => {
  it("are the jobs Worker's routes of the table, which has some", () => {
    expect(JOBS_ROUTES.map(routeName)).toContain("POST /bank_statements");
    expect(JOBS_ROUTES.length + API_ROUTES.length).toBe(ROUTES.length);
  });

  it.each(JOBS_ROUTES.map((spec) => [routeName(spec), spec] as const))(
    "%s reaches the jobs Worker as it came, body unread, URL unchanged",
    async (_, spec) => {
      const request = requestOf(spec.method.toUpperCase(), concrete(spec.path));
      const { passed, response, jobsAnswer } = await dispatch(request);
      expect(passed).toHaveLength(1);
      expect(passed[0]).toBe(request);
      expect(request.bodyUsed).toBe(false);
      expect(passed[0]!.url).toBe(`https://api.test${concrete(spec.path)}?page=2`);
      expect(response).toBe(jobsAnswer);
    },
  );

  it.each(API_ROUTES.map((spec) => [routeName(spec), spec] as const))(
    "%s stays with the API Worker",
    async (_, spec) => {
      const { passed, response } = await dispatch(requestOf(spec.method.toUpperCase(), concrete(spec.path)));
      expect(passed).toStrictEqual([]);
      expect(response.status).toBe(spec.access ? 401 : spec.success.status);
    },
  );

  it.each([
    ["another method of a path the jobs Worker serves (it answers 405)", "DELETE", "/bank_statements"],
    ["a CORS preflight of it", "OPTIONS", `/invoices/${ID}/payments`],
    ["a path parameter of any one segment", "GET", "/bank_statements/x"],
  ])("takes %s", async (_, method, path) => {
    expect((await dispatch(requestOf(method, path))).passed).toHaveLength(1);
  });

  it.each([
    ["/bank_statementsx"],
    ["/bank_statements/"],
    [`/invoices/${ID}/payments/`],
    [`/invoices/${ID}/y/payments`],
    ["/invoices//payments"],
  ])("takes whole path segments only: %s stays, and names no route (404)", async (path) => {
    const { passed, response } = await dispatch(requestOf("GET", path));
    expect(passed).toStrictEqual([]);
    expect(response.status).toBe(404);
  });
});

describe("a path no route names", () => {
  // Such a path under a collection of the jobs Worker was passed on before the pass-on was derived from
  // the table; the API Worker answers it now, the same 404 as the jobs Worker would.
  it.each([["/bank_statements/"], ["/bank_statements/x/y"], [`/invoices/${ID}/payments/`]])(
    "%s answers the same 404 from either Worker",
    async (path) => {
      const request = () => new Request(`https://api.test${path}`, { headers: { "X-Request-Id": "same" } });
      const [fromApi, fromJobs] = [await answer(api as Entry, request()), await answer(jobs as Entry, request())];
      expect(fromApi.status).toBe(404);
      expect([...fromApi.headers]).toStrictEqual([...fromJobs.headers]);
      expect(await fromApi.text()).toBe(await fromJobs.text());
    },
  );
});

describe("the jobs Worker", () => {
  it.each(JOBS_ROUTES.map((spec) => [routeName(spec), spec] as const))("serves %s", async (_, spec) => {
    const response = await answer(jobs as Entry, requestOf(spec.method.toUpperCase(), concrete(spec.path)));
    expect(response.status).toBe(spec.access ? 401 : spec.success.status);
  });
});

describe("a Worker whose handlers disagree with the route table does not start", () => {
  const [jobsRoute] = endpoints.filter(({ spec }) => spec.worker === "jobs");
  const [apiRoute] = endpoints.filter(({ spec }) => spec.worker === undefined) as Endpoint[];
  const spec = jobsRoute!.spec;
  const handler = apiRoute!.handler;

  it("refuses a route of the jobs Worker without its handler", () => {
    expect(() => appOf("jobs", [{ spec }])).toThrow(`${routeName(spec)}: no handler in the jobs Worker`);
  });

  it("refuses a handler of no route", () => {
    expect(() => appOf("jobs", [], [{ spec, handler }])).toThrow(
      `${routeName(spec)}: a handler of no route of the jobs Worker`,
    );
  });

  it("refuses a route of the jobs Worker that brings its handler into the table (the API Worker's bundle)", () => {
    expect(() => appOf("api", [{ spec, handler }])).toThrow(
      `${routeName(spec)}: the jobs Worker's route is in the table by its spec alone`,
    );
  });

  it("refuses a route of the API Worker without its handler", () => {
    expect(() => appOf("api", [{ spec: apiRoute!.spec }])).toThrow(
      `${routeName(apiRoute!.spec)}: no handler in the API Worker`,
    );
  });
});
