// `npm run dev` (scripts/dev.mjs) as a new developer first meets it, in a copy of the project (so that
// the developer's own .dev.vars and .wrangler/state are never touched): the migrations of a fresh
// database print one summary line (up to date the second time; wrangler's full output only when they
// fail), an explicit `--inspector-port` wins over PORT + 1000 (which stays free), and the API Worker's
// log lines carry its name, not `[undefined]` (wrangler's prefix when it runs several Workers). It is
// quiet: no table of bindings, a short summary after "Ready on", and no secret of .dev.vars in what it
// prints (the jobs Worker still gets them: a passed-on route accepts a token). `npm run db:reset`
// refuses while it runs (nothing deleted, the server still answers), and works once it has stopped.
// Ports: free from DEV_SERVER_PORT (default 8900) + 250 on: the API, the inspector asked for (2 above)
// and PORT + 1000.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { sign } from "hono/jwt";
import { readDevVars } from "../../scripts/dev-vars.mjs";
import { firstFreePorts, INSPECTOR_OFFSET, isFree } from "../../scripts/ports.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// What the copy leaves out: dependencies (linked instead), local state and secrets, git.
const LEFT_OUT = new Set(["node_modules", ".wrangler", ".git", ".dev.vars", "scratch"]);

function projectCopy() {
  const dir = mkdtempSync(join(tmpdir(), "npm-run-dev-"));
  cpSync(ROOT, dir, { recursive: true, filter: (source) => !LEFT_OUT.has(relative(ROOT, source).split("/")[0]) });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/** `node scripts/dev.mjs ...args` in `cwd`, its output gathered; `stop()` signals it as Ctrl-C would. */
function startDev(cwd, args, env) {
  const child = spawn(process.execPath, ["scripts/dev.mjs", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null) process.kill(child.pid, "SIGINT");
      const code = await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      try {
        process.kill(-child.pid, "SIGKILL"); // whatever of its group is left
      } catch {
        // all gone
      }
      return code;
    },
  };
}

async function until(what, check, timeoutMs, dev) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`${what} within ${timeoutMs} ms; the dev server printed:\n${dev.output()}`);
}

/** `npm run db:reset` in `cwd`, to its end. */
const dbReset = (cwd) => {
  const { status, stdout, stderr } = spawnSync(process.execPath, ["scripts/db-reset.mjs"], { cwd, encoding: "utf8" });
  return { status, stdout, stderr };
};

/** What `npm run dev` prints after "Ready on" on a port (scripts/dev.mjs), the same for every developer. */
const summaryOf = (api, inspector) => `
  API        ${api}  (the API Worker; the jobs and documents Workers answer behind it)
  Reference  ${api}/docs  (OpenAPI: ${api}/openapi.json; docs/api.md)
  Tokens     npm run token -- --sub alice --customer acme --scope "card_orders:read"  (--help: the scopes)
  Crons      curl -X POST "${api}/cdn-cgi/local/explorer/api/local/scheduled?worker=voucher-billing-jobs" \\
               -H 'Content-Type: application/json' -d '{"cron":"* * * * *"}'  (hourly: "17 * * * *")
  Database   .wrangler/state (npm run db:reset once this is stopped); inspector on 127.0.0.1:${inspector}
`;

const answers = async (url) => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
};

test("npm run dev: one migrations line, an explicit --inspector-port, named log lines, quiet, no secret", {
  timeout: 300_000,
}, async (t) => {
  const dir = projectCopy();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const migrations = readdirSync(join(dir, "drizzle"))
    .filter((name) => name.endsWith(".sql"))
    .sort();
  const port = await firstFreePorts(
    Number(process.env.DEV_SERVER_PORT ?? 8900) + 250,
    [0, 2, INSPECTOR_OFFSET],
    "DEV_SERVER_PORT",
  );
  const api = `http://127.0.0.1:${port}`;

  // A fresh database, the inspector on a port of the developer's choosing.
  const first = startDev(dir, ["--inspector-port", String(port + 2)], { PORT: String(port) });
  t.after(() => first.stop());
  await until("the API answers", () => answers(`${api}/health`), 120_000, first);
  const requestId = `npm-run-dev-test-${Date.now()}`;
  const health = await fetch(`${api}/health`, { headers: { "X-Request-Id": requestId } });
  assert.equal(health.status, 200);
  await until("the request's log line", () => first.output().includes(requestId), 10_000, first);

  const lines = first.output().split("\n");
  assert.deepEqual(
    lines.filter((line) => /migration/i.test(line)),
    [`Local D1 database: applied ${migrations.length} migrations (${migrations[0]} to ${migrations.at(-1)}).`],
  );
  assert.ok(!/[┌│└]/.test(first.output()), "no table of migrations");
  assert.equal(await isFree(port + 2), false, "the inspector listens where --inspector-port says");
  assert.equal(await isFree(port + INSPECTOR_OFFSET), true, "PORT + 1000 is left alone");
  // wrangler prefixes each Worker's lines with its name when it runs several Workers.
  const logLine = lines.find((line) => line.includes(requestId));
  assert.match(
    logLine,
    new RegExp(`^(\\x1b\\[\\d+m)*\\[voucher-billing-api\\](\\x1b\\[\\d+m)* \\{"request_id":"${requestId}"`),
  );
  assert.ok(!first.output().includes("[undefined]"), "no line starts with [undefined]");

  // Quiet: wrangler's tables of bindings are gone, the summary follows "Ready on".
  const output = first.output();
  assert.doesNotMatch(output, /has access to the following bindings|Using secrets defined in|Environment Variable/);
  assert.doesNotMatch(output, /cdn-cgi\/local\/scheduled/, "no route that misses the jobs Worker's crons");
  const ready = output.indexOf(`Ready on ${api}`);
  assert.ok(ready > 0, output);
  const afterReady = output.slice(output.indexOf("\n", ready) + 1);
  assert.ok(afterReady.startsWith(summaryOf(api, port + 2)), afterReady);
  assert.ok(output.slice(0, ready).split("\n").length <= 8, `a few lines before Ready on:\n${output}`);
  // No secret of the copy's .dev.vars, whole or its first 16 characters, yet the jobs Worker has them:
  // a passed-on route takes a token signed with JWT_SECRET.
  const secrets = readDevVars(join(dir, ".dev.vars"));
  for (const name of ["JWT_SECRET", "APP_SECRET"]) {
    assert.ok(secrets[name]?.length >= 32, name);
    assert.ok(!output.includes(secrets[name].slice(0, 16)), `${name} is not printed`);
  }
  const now = Math.floor(Date.now() / 1000);
  const office = await sign({ sub: "office-1", scope: "payments:read", exp: now + 600 }, secrets.JWT_SECRET, "HS256");
  const passedOn = await fetch(`${api}/bank_transactions`, { headers: { Authorization: `Bearer ${office}` } });
  assert.equal(passedOn.status, 200, await passedOn.text());

  // db:reset refuses while the dev server runs: exit 1, one line, nothing deleted, still answering.
  const refused = dbReset(dir);
  assert.equal(refused.status, 1, refused.stderr);
  assert.equal(refused.stdout, "");
  assert.match(
    refused.stderr,
    new RegExp(
      `^npm run db:reset: npm run dev is running \\(pid \\d+, ${api}\\): stop it first \\(Ctrl-C\\), then reset\\. Nothing was deleted\\.\n$`,
    ),
  );
  assert.ok(existsSync(join(dir, ".wrangler/state")), "the local state is still there");
  assert.equal((await fetch(`${api}/health`)).status, 200);
  await first.stop();
  await until("the ports are free", async () => (await isFree(port)) && (await isFree(port + 2)), 10_000, first);
  assert.ok(!existsSync(join(dir, ".wrangler/dev-server.json")), "the dev server took its lock file away");
  // Stopped, db:reset empties the database and migrates it again.
  const reset = dbReset(dir);
  assert.equal(reset.status, 0, reset.stderr);
  assert.equal(
    reset.stdout,
    `Local D1 database: applied ${migrations.length} migrations (${migrations[0]} to ${migrations.at(-1)}).\n`,
  );

  // Again on the same database: up to date, and the inspector at PORT + 1000 by default.
  const second = startDev(dir, [], { PORT: String(port) });
  t.after(() => second.stop());
  await until("the API answers again", () => answers(`${api}/health`), 120_000, second);
  assert.deepEqual(
    second
      .output()
      .split("\n")
      .filter((line) => /migration/i.test(line)),
    ["Local D1 database: up to date, no migration to apply."],
  );
  assert.equal(await isFree(port + INSPECTOR_OFFSET), false, "the inspector at PORT + 1000");
  await second.stop();
  await until("the ports are free", async () => (await isFree(port)) && (await isFree(port + 1000)), 10_000, second);

  // A migration that fails: wrangler's whole output, the failure in one line, no dev server.
  writeFileSync(join(dir, "drizzle", "9999_broken.sql"), "SELEC 1;\n");
  const broken = startDev(dir, [], { PORT: String(port) });
  assert.notEqual(await broken.exited, 0);
  const failed = broken.output();
  assert.match(failed, /Migrations to be applied:/);
  assert.match(failed, /9999_broken\.sql/);
  assert.match(failed, /near "SELEC": syntax error/);
  assert.match(failed, /^wrangler d1 migrations apply DB --local failed \(exit 1\): above\.$/m);
  assert.doesNotMatch(failed, /Ready on/);
});

test("npm run dev refuses a port it cannot use in one line, before touching anything", async () => {
  for (const [env, args, message] of [
    [{ PORT: "70000" }, [], "npm run dev: PORT must be a port from 1 to 65535, not 70000"],
    [
      { PORT: "65000" },
      [],
      "npm run dev: the inspector's port, PORT + 1000 (66000), is above 65535: give a lower PORT or --inspector-port",
    ],
    [{}, ["--port", "x"], "npm run dev: --port must be a port from 1 to 65535, not x"],
    [{}, ["--inspector-port=0"], "npm run dev: --inspector-port must be a port from 1 to 65535, not 0"],
  ]) {
    const dev = startDev(ROOT, args, env);
    assert.equal(await dev.exited, 2, dev.output());
    assert.equal(dev.output(), `${message}\n`);
  }
});
