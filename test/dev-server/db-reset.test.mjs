// `npm run db:reset` (scripts/db-reset.mjs) refuses while `npm run dev` runs in the directory, by the
// lock file scripts/dev.mjs holds (scripts/dev-lock.mjs), and a lock whose process is gone (a dev server
// killed with SIGKILL) stops nothing. In a folder with the project's wrangler.toml and migrations
// (npm-run-dev.test.mjs holds the same against a real dev server). Starts no dev server.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

test("db:reset refuses while the lock's process lives, and resets once it is gone", { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "db-reset-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(ROOT, "wrangler.toml"), join(dir, "wrangler.toml"));
  cpSync(join(ROOT, "drizzle"), join(dir, "drizzle"), { recursive: true });
  mkdirSync(join(dir, ".wrangler/state"), { recursive: true });
  const kept = join(dir, ".wrangler/state/kept");
  writeFileSync(kept, "");
  const reset = () => spawnSync(process.execPath, [join(ROOT, "scripts/db-reset.mjs")], { cwd: dir, encoding: "utf8" });
  const lock = (pid) =>
    writeFileSync(join(dir, ".wrangler/dev-server.json"), `${JSON.stringify({ pid, url: "http://127.0.0.1:8787" })}\n`);

  const alive = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  t.after(() => alive.kill());
  lock(alive.pid);
  const refused = reset();
  assert.equal(refused.status, 1, refused.stderr);
  assert.equal(
    refused.stderr,
    `npm run db:reset: npm run dev is running (pid ${alive.pid}, http://127.0.0.1:8787): stop it first (Ctrl-C), ` +
      "then reset. Nothing was deleted.\n",
  );
  assert.ok(existsSync(kept), "nothing deleted");

  alive.kill();
  await new Promise((resolve) => alive.once("exit", resolve));
  const done = reset();
  assert.equal(done.status, 0, done.stderr);
  const migrations = readdirSync(join(dir, "drizzle")).filter((name) => name.endsWith(".sql")).length;
  assert.match(done.stdout, new RegExp(`^Local D1 database: applied ${migrations} migrations \\(`));
  assert.ok(!existsSync(kept), "the old state is gone");
});
