// `npm run test:browser` (node --test, outside the Workers pool): /docs in a real headless Chromium
// (chromium.mjs's: @sparticuz/chromium's, or CHROMIUM; driven by playwright-core) on a `wrangler dev` this file
// starts, with every request to another host refused. The reference must render, with no console
// error, no failed or refused request and no Content-Security-Policy violation. The screenshot
// lands in test/browser/docs.png. PORT sets wrangler dev's port (its inspector takes PORT + 1000);
// otherwise both are free ports.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { anyFreePort, INSPECTOR_OFFSET } from "../../scripts/ports.mjs";
import { wranglerSpawn } from "../../scripts/wrangler.mjs";
import { HOST, launchChromium, skipWithoutChromium } from "./chromium.mjs";

const SCREENSHOT = new URL("docs.png", import.meta.url).pathname;

let wrangler;
let browser;
let base;
let output = "";
const state = mkdtempSync(join(tmpdir(), "docs-browser-"));

/** Outside CI, without a Chromium (chromium.mjs), the tests skip saying why. */
const skip = skipWithoutChromium();

before(async () => {
  if (skip) return;
  browser = await launchChromium();
  const port = process.env.PORT ? Number(process.env.PORT) : await anyFreePort();
  const inspectorPort = process.env.PORT ? port + INSPECTOR_OFFSET : await anyFreePort();
  base = `http://${HOST}:${port}`;
  // wrangler.toml's [build] command writes the OpenAPI document and Scalar's bundle first.
  const args = [
    "dev",
    "--ip",
    HOST,
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    state,
    "--show-interactive-dev-session=false",
  ];
  wrangler = wranglerSpawn(args, {
    cwd: new URL("../..", import.meta.url).pathname,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [wrangler.stdout, wrangler.stderr]) stream.on("data", (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    assert.equal(wrangler.exitCode, null, `wrangler dev exited:\n${output}`);
    assert.ok(Date.now() < deadline, `wrangler dev did not answer within 60 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
});

after(async () => {
  await browser?.close();
  if (wrangler && wrangler.exitCode === null) {
    const exited = new Promise((resolve) => wrangler.once("exit", resolve));
    process.kill(-wrangler.pid, "SIGTERM"); // its process group: wrangler and its workerd
    await exited;
  }
  rmSync(state, { recursive: true, force: true });
});

/** A page whose every request to another host is refused, and what went wrong on it. */
async function watchedPage(options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const seen = { requests: [], refused: [], failed: [], consoleErrors: [], pageErrors: [], cspViolations: [] };
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__cspViolations.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
  });
  await context.route("**/*", (route) => {
    if (new URL(route.request().url()).hostname === HOST) return route.continue();
    seen.refused.push(route.request().url());
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  page.on("request", (request) => seen.requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  page.on("requestfailed", (request) => seen.failed.push(`${request.url()} ${request.failure()?.errorText}`));
  page.on(
    "response",
    (response) => response.status() >= 400 && seen.failed.push(`${response.url()} ${response.status()}`),
  );
  page.on("console", (message) => message.type() === "error" && seen.consoleErrors.push(message.text()));
  page.on("pageerror", (error) => seen.pageErrors.push(String(error)));
  return { context, page, seen };
}

test("/docs renders the reference from this origin alone, without an error", { skip, timeout: 120_000 }, async () => {
  const { context, page, seen } = await watchedPage();
  const response = await page.goto(`${base}/docs`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()["content-security-policy"], /script-src 'self'.*frame-ancestors 'none'/);
  await page.getByText("Create a card order").first().waitFor({ timeout: 30_000 });
  await page.getByRole("button", { name: "Invoices" }).first().click(); // the other tags start folded
  await page.getByText("Invoice a card order").first().waitFor();
  // Every operation but the public three needs the bearer token: the page opens with it selected.
  await page.getByText("Selected Auth Type: bearerAuth").first().waitFor();
  assert.equal(await page.getByText("No authentication selected").count(), 0);
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: SCREENSHOT });
  seen.cspViolations = await page.evaluate(() => window.__cspViolations);

  assert.deepEqual(seen.refused, [], "requests to other hosts");
  assert.deepEqual(seen.failed, [], "failed requests");
  assert.deepEqual(seen.consoleErrors, [], "console errors");
  assert.deepEqual(seen.pageErrors, [], "uncaught errors");
  assert.deepEqual(seen.cspViolations, [], "Content-Security-Policy violations");
  assert.equal(await page.locator("#docs-fallback").count(), 0, "the fallback text gives way to the reference");
  assert.ok(
    seen.requests.includes("GET /openapi.json"),
    `the reference reads /openapi.json: ${seen.requests.join(", ")}`,
  );
  await context.close();
});

test("without JavaScript /docs links the document, which the Worker serves with its headers", { skip }, async () => {
  const { context, page, seen } = await watchedPage({ javaScriptEnabled: false });
  await page.goto(`${base}/docs`);
  assert.equal(await page.locator("#docs-fallback a").getAttribute("href"), "/openapi.json");
  await context.close();
  assert.deepEqual([...seen.refused, ...seen.failed], []);

  // run_worker_first: the Worker, not the asset layer, answers /openapi.json on wrangler dev too.
  const document = await fetch(`${base}/openapi.json`);
  assert.equal(document.status, 200);
  assert.equal(document.headers.get("content-type"), "application/json; charset=utf-8");
  assert.match(document.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  assert.equal((await document.json()).openapi, "3.1.0");

  const favicon = await fetch(`${base}/favicon.ico`);
  assert.equal(favicon.status, 200);
  assert.equal(favicon.headers.get("content-type"), "image/vnd.microsoft.icon");
  await favicon.arrayBuffer();
});
