// `npm run dev` survives an oversized chunked body (issue 13): a POST or PUT over 64 KiB without
// Content-Length gets its 413, and the next requests of any client are answered as usual. A Worker
// that read part of the body and cancelled it left wrangler dev hanging on the next request
// (workers-sdk#15709), which only a real `wrangler dev` shows; so this runs under node --test
// (`npm run test:dev`), not vitest. Ports: the Worker's and its inspector's (1000 above), free from DEV_SERVER_PORT
// (default 8900) + 50 on, apart from the other dev-server test's, which may run at the same time.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { after, before, test } from "node:test";
import { sign } from "hono/jwt";
import { startWorker, stopAllWorkers } from "../../scripts/local-worker.mjs";
import { firstFreePorts, INSPECTOR_OFFSET } from "../../scripts/ports.mjs";

const NEXT_REQUEST_TIMEOUT_MS = 2_000;
const secret = randomBytes(32).toString("hex");
let worker;

// The Worker runs in a process group of its own, which an interrupt of this process does not reach.
for (const signal of ["SIGINT", "SIGTERM"])
  process.once(signal, () => stopAllWorkers().finally(() => process.exit(130)));

before(async () => {
  const port = await firstFreePorts(
    Number(process.env.DEV_SERVER_PORT ?? 8900) + 50,
    [0, INSPECTOR_OFFSET],
    "DEV_SERVER_PORT",
  );
  worker = await startWorker({ name: "dev-server-test", port, vars: { JWT_SECRET: secret } });
});

after(() => worker?.stop());

/**
 * One request on a connection of its own (another client), answered within `timeoutMs`. `chunks`
 * are written one by one without Content-Length (Transfer-Encoding: chunked).
 */
function send(method, path, { headers = {}, body, chunks, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const req = request(`${worker.url}${path}`, { method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (data) => (text += data)).on("end", () => resolve({ status: res.statusCode, text }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    if (chunks) {
      for (const chunk of chunks) req.write(chunk);
      req.end();
    } else req.end(body);
  });
}

test("a chunked POST over 64 KiB gets 413, and the next GET and POST are answered within 2 s", async () => {
  const now = Math.floor(Date.now() / 1000);
  const token = await sign(
    {
      sub: "dev-server-test",
      customer_id: "dev-server-test",
      scope: "card_orders:read card_orders:write",
      exp: now + 600,
    },
    secret,
    "HS256",
  );
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const chunks = ['{"description":"', ...Array(5).fill("x".repeat(14_000)), '"}']; // 70 KB
  const order = JSON.stringify({ voucher_category: "mixed", payment_method: "bank_transfer" });

  for (let round = 1; round <= 3; round++) {
    const big = await send("POST", "/card_orders", { headers, chunks, timeoutMs: 10_000 });
    assert.equal(big.status, 413, `round ${round}: ${big.text}`);
    assert.match(big.text, /"code":"payload_too_large"/);

    const list = await send("GET", "/card_orders", {
      headers: { Authorization: headers.Authorization },
      timeoutMs: NEXT_REQUEST_TIMEOUT_MS,
    });
    assert.equal(list.status, 200, `round ${round}: ${list.text}`);
    const created = await send("POST", "/card_orders", { headers, body: order, timeoutMs: NEXT_REQUEST_TIMEOUT_MS });
    assert.equal(created.status, 201, `round ${round}: ${created.text}`);
  }
});

test("a chunked PUT of a device token over 64 KiB gets 413, and the next PUT is answered within 2 s", async () => {
  const now = Math.floor(Date.now() / 1000);
  const token = await sign(
    { sub: "dev-server-owner", scope: "notification_tokens:write", exp: now + 600 },
    secret,
    "HS256",
  );
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const path = "/voucher_owners/me/notification_tokens";
  const chunks = ['{"device_identifier":"phone","value":"', ...Array(5).fill("x".repeat(14_000)), '"}']; // 70 KB

  for (let round = 1; round <= 2; round++) {
    const big = await send("PUT", path, { headers, chunks, timeoutMs: 10_000 });
    assert.equal(big.status, 413, `round ${round}: ${big.text}`);
    assert.match(big.text, /"code":"payload_too_large"/);
    const device = JSON.stringify({ device_identifier: "phone", value: `fcm-${round}` });
    const registered = await send("PUT", path, { headers, body: device, timeoutMs: NEXT_REQUEST_TIMEOUT_MS });
    assert.equal(registered.status, 204, `round ${round}: ${registered.text}`);
  }
});
