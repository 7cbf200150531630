// `npm run test:browser`: an invoice's PDF (format=pdf, ZUGFeRD) downloaded as a browser downloads
// it, from a link on a page of the API's origin, in the headless Chromium of chromium.mjs. The
// invoice is issued through the API of a `wrangler dev` this file starts with both Workers (the API
// and the documents Worker its RENDERER binding calls) and a fresh local D1 (scripts/local-worker.mjs).
// The download must be served as application/pdf under the invoice's number, and be the bytes a plain
// request gets. Every request to another host is refused.
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { sign } from "hono/jwt";
import { readDevVars } from "../../scripts/dev-vars.mjs";
import { startWorker } from "../../scripts/local-worker.mjs";
import { anyFreePort } from "../../scripts/ports.mjs";
import { HOST, launchChromium, skipWithoutChromium } from "./chromium.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// The secrets `npm run dev` starts with (never the developer's own .dev.vars).
const VARS = readDevVars(resolve(ROOT, ".dev.vars.example"));
const SCOPES = "card_orders:read card_orders:write invoices:read invoices:write";

let browser;
let worker;
let base;
const errors = [];

/** Outside CI, without a Chromium (chromium.mjs), the tests skip saying why. */
const skip = skipWithoutChromium();

before(async () => {
  if (skip) return;
  browser = await launchChromium();
  const [port, inspectorPort] = [await anyFreePort(), await anyFreePort()];
  worker = await startWorker({
    name: "pdf-download-browser",
    port,
    inspectorPort,
    vars: VARS,
    onErrorLine: (line) => errors.push(line),
  });
  base = worker.url;
});

after(async () => {
  await browser?.close();
  await worker?.stop();
  if (worker) rmSync(worker.persistTo, { recursive: true, force: true });
});

/** A request to the API as the customer; its JSON answer, which must have `status`. */
async function api(token, method, path, body, status = 200) {
  const response = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body && { "Content-Type": "application/json" }) },
    body: body && JSON.stringify(body),
  });
  const text = await response.text();
  assert.equal(response.status, status, `${method} ${path}: ${text}\n${errors.join("\n")}`);
  return JSON.parse(text);
}

test("an invoice's PDF downloads in Chromium as application/pdf named after its number", {
  skip,
  timeout: 120_000,
}, async () => {
  const now = Math.floor(Date.now() / 1000);
  const token = await sign(
    { sub: "alice", customer_id: "acme", scope: SCOPES, iat: now, exp: now + 600 },
    VARS.JWT_SECRET,
    "HS256",
  );
  await api(token, "PUT", "/customers/me/billing_profile", {
    legal_name: "Müller & Söhne Straßenbau GmbH",
    street: "Große Elbstraße 5",
    postcode: "22767",
    city: "Hamburg",
    country_code: "DE",
    vat_id: "DE987654321",
    email: "buchhaltung@mueller-soehne.example",
  });
  const order = await api(
    token,
    "POST",
    "/card_orders",
    { voucher_category: "meal", payment_method: "bank_transfer", description: "Kantinenkarten" },
    201,
  );
  const orderId = order.data[0].id;
  for (const [name, amount] of [
    ["Jürgen Groß", "50.00"],
    ["Zoë Weiß-Schäfer", "25.50"],
  ])
    await api(
      token,
      "POST",
      `/card_orders/${orderId}/entries`,
      { voucher_owner_id: `owner-${amount}`, card_holder_name: name, amount },
      201,
    );
  await api(token, "POST", `/card_orders/${orderId}/submit`);
  const invoice = (await api(token, "POST", "/invoices", { order_id: orderId }, 201)).data[0];
  const path = `/invoices/${invoice.id}/document?format=pdf`;

  // A page of the API's origin (fulfilled here: the API serves no such page) with a link to the PDF,
  // clicked as a reader clicks it: a navigation, which Content-Disposition: attachment turns into a
  // download. The bearer token goes with every request of the page (the API takes no cookie). Not
  // an <a download>: Chromium fetches that itself, without the page's extra headers.
  const context = await browser.newContext({
    acceptDownloads: true,
    extraHTTPHeaders: { Authorization: `Bearer ${token}` },
  });
  const refused = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname !== HOST) {
      refused.push(url.href);
      return route.abort("blockedbyclient");
    }
    if (url.pathname === "/invoice-page")
      return route.fulfill({
        contentType: "text/html; charset=utf-8",
        body: `<!doctype html><title>Rechnung</title><a id="pdf" href="${path}">PDF</a>`,
      });
    return route.continue();
  });
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  // The answer as Chromium received it: a navigation that turns into a download raises no "response"
  // event in Playwright, but the DevTools protocol's network domain reports it.
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const answered = new Promise((resolve, reject) => {
    cdp.on("Network.responseReceived", ({ response }) => response.url === base + path && resolve(response));
    setTimeout(() => reject(new Error(`no answer to ${path} within 30 s`)), 30_000).unref();
  });
  await page.goto(`${base}/invoice-page`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#pdf").click()]);
  const response = await answered;

  assert.equal(response.status, 200);
  const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v]));
  assert.equal(response.mimeType, "application/pdf");
  assert.equal(headers["content-type"], "application/pdf");
  assert.equal(headers["content-disposition"], `attachment; filename="${invoice.number}.pdf"`);
  assert.match(invoice.number, /^INV-\d{4}-\d{6}$/);
  assert.equal(download.suggestedFilename(), `${invoice.number}.pdf`);
  assert.equal(await download.failure(), null);
  const saved = readFileSync(await download.path());
  assert.equal(saved.subarray(0, 5).toString("latin1"), "%PDF-");

  // The same bytes as a plain request's: the stored document, served again.
  const plain = await fetch(base + path, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get("content-type"), "application/pdf");
  assert.ok(Buffer.from(await plain.arrayBuffer()).equals(saved), "the download's bytes are the API's");

  await context.close();
  assert.deepEqual(refused, [], "requests to other hosts");
  assert.deepEqual(pageErrors, [], "uncaught errors");
});
