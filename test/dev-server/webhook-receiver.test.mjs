// `npm run webhook:receive` (scripts/webhook-receiver.mjs) as the README's session uses it: started in
// the background with its output in a file, waited for with the README's curl line until it answers,
// sent a signed delivery (and a forged one), then stopped by a signal to the process that was started,
// after which nothing of it may listen on the port. Started through npm, the receiver runs under
// npm's `sh -c`: a SIGTERM to npm ends npm and its shell, and the receiver must notice and end too.
// Needs no dev server. Ports: free from DEV_SERVER_PORT (default 8900) + 200 on.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { firstFreePorts, isFree } from "../../scripts/ports.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** The receiver started as `[npm run -s webhook:receive | node scripts/webhook-receiver.mjs] -- --port <port> > log`. */
function startReceiver(port, { npm }) {
  const dir = mkdtempSync(join(tmpdir(), "receiver-test-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, "receiver.log");
  const out = openSync(log, "w");
  const [command, args] = npm
    ? ["npm", ["run", "-s", "webhook:receive", "--", "--port", String(port)]]
    : [process.execPath, [join(ROOT, "scripts/webhook-receiver.mjs"), "--port", String(port)]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, WEBHOOK_SECRET: SECRET },
    stdio: ["ignore", out, "pipe"],
  });
  closeSync(out);
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return { child, log, exited, stderr: () => stderr };
}

/** The README's line that waits until the receiver answers. */
const waitReady = (port) =>
  new Promise((resolve, reject) =>
    execFile(
      "curl",
      ["-s", "--retry", "20", "--retry-connrefused", "--retry-delay", "1", `http://127.0.0.1:${port}/`],
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    ),
  );

async function deliver(port, { forged = false } = {}) {
  const id = `msg_${randomBytes(8).toString("hex")}`;
  const body = JSON.stringify({
    id,
    type: "card_order.submitted",
    created_at: new Date().toISOString(),
    data: { id: "order-1", state: "submitted" },
  });
  const timestamp = new Date();
  const signature = new Webhook(forged ? `whsec_${randomBytes(32).toString("base64")}` : SECRET).sign(
    id,
    timestamp,
    body,
  );
  const response = await fetch(`http://127.0.0.1:${port}/`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": signature,
    },
    body,
  });
  return { id, status: response.status };
}

/** Whether the port is free within `ms`: the receiver may take a moment to notice its parent gone. */
async function freeWithin(port, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await isFree(port)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return isFree(port);
}

async function session(t, { npm, signal }) {
  const port = await firstFreePorts(Number(process.env.DEV_SERVER_PORT ?? 8900) + 200, [0], "DEV_SERVER_PORT");
  const receiver = startReceiver(port, { npm });
  t.after(() => receiver.child.exitCode === null && receiver.child.kill("SIGKILL"));

  assert.equal(await waitReady(port), "ready\n");
  const verified = await deliver(port);
  assert.equal(verified.status, 204);
  const forged = await deliver(port, { forged: true });
  assert.equal(forged.status, 400);
  assert.deepEqual(readFileSync(receiver.log, "utf8").split("\n"), [
    `receiving webhooks on http://127.0.0.1:${port}/`,
    `verified ${verified.id} card_order.submitted order-1 submitted`,
    `refused  ${forged.id}: No matching signature found`,
    "",
  ]);

  receiver.child.kill(signal);
  await receiver.exited;
  assert.ok(await freeWithin(port, 2000), `port ${port} still taken after ${signal}: ${receiver.stderr()}`);
  assert.equal(receiver.stderr(), "");
}

test("through npm, as the README starts it: ready, verifies, and SIGTERM to npm frees the port", (t) =>
  session(t, { npm: true, signal: "SIGTERM" }));

// npm signals its `sh -c`, which waits for its child on SIGINT instead of passing it on: only a
// script line starting with `exec` (the shell replaced by node) lets the receiver see it.
test(
  "through npm, SIGINT to npm frees the port",
  {
    skip:
      !/^exec /.test(manifest.scripts["webhook:receive"]) &&
      'package.json\'s "webhook:receive" does not start with exec',
  },
  (t) => session(t, { npm: true, signal: "SIGINT" }),
);

test("run by node itself: SIGINT and SIGTERM free the port", async (t) => {
  await session(t, { npm: false, signal: "SIGINT" });
  await session(t, { npm: false, signal: "SIGTERM" });
});

test("a second receiver on a taken port says so in one line and exits 1", async (t) => {
  const port = await firstFreePorts(Number(process.env.DEV_SERVER_PORT ?? 8900) + 200, [0], "DEV_SERVER_PORT");
  const first = startReceiver(port, { npm: false });
  t.after(() => first.child.kill("SIGTERM"));
  await waitReady(port);
  const second = startReceiver(port, { npm: false });
  assert.deepEqual(await second.exited, { code: 1, signal: null });
  assert.equal(
    second.stderr(),
    `Port ${port} is in use (another receiver still running?): stop it, or give another with --port.\n`,
  );
});
