// Starts a Worker under `wrangler dev` on loopback with its own migrated local D1, for the load and
// bench scripts (never on the developer's `.wrangler/state`). Returns { url, stop, ... }.
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { apiVars, derivedConfig } from "./derived-config.mjs";
import { INSPECTOR_OFFSET } from "./ports.mjs";
import { quietEnv, wranglerSpawn } from "./wrangler.mjs";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

/** The Workers beside a config's Worker in its session: jobs (queues, passed-on requests; the vars) and documents. */
const COMPANIONS = [
  {
    config: "wrangler.documents.toml",
    needed: (toml) => /service = "voucher-billing-(documents|jobs)"/.test(toml),
  },
  {
    config: "wrangler.jobs.toml",
    needed: (toml) =>
      toml.includes('queue = "voucher-billing-events"') || toml.includes('service = "voucher-billing-jobs"'),
    vars: true,
  },
];

async function waitUntilReady(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

// Each wrangler runs in its own process group (stopping reaches workerd); Ctrl-C callers call stopAllWorkers().
const running = new Set();
let generation = 0;

/** Stops every Worker, migration and seed started here that still runs; Workers still starting give up. */
export function stopAllWorkers() {
  generation += 1;
  return Promise.all([...running].map((stop) => stop()));
}

/** wrangler (or the worker host) in a new process group; `stop()` ends the group and waits for it. */
function spawnGroup(args, options, startedIn, host = false) {
  if (startedIn !== generation) throw new Error("stopAllWorkers() was called while this Worker was starting");
  const child = host
    ? spawn(process.execPath, [resolve(ROOT, "scripts/worker-host.mjs"), ...args], { ...options, detached: true })
    : wranglerSpawn(args, { ...options, detached: true });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    running.delete(stop);
    try {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGTERM");
    } catch {
      // the group is gone already
    }
    await exited;
  };
  running.add(stop);
  exited.then(() => running.delete(stop));
  return { child, exited, stop };
}

/** A wrangler command to completion, without blocking (Workers migrate and seed at once); CI=true takes defaults. */
async function wranglerStep(args, env, startedIn) {
  const { exited } = spawnGroup(
    args,
    { stdio: ["ignore", "ignore", "inherit"], env: { ...quietEnv, ...env, CI: "true" } },
    startedIn,
  );
  const code = await exited;
  if (code !== 0) throw new Error(`wrangler ${args.join(" ")} exited with ${code}`);
}

/** The rows of each `;`-separated statement of `sql` on a stopped Worker's local D1: what is stored. */
export async function queryD1({ configPath, persistTo }, sql, env = {}) {
  const args = ["d1", "execute", "DB", "--local", "--config", configPath, "--persist-to", persistTo, "--json"];
  args.push("--command", sql);
  const { child, exited } = spawnGroup(
    args,
    { stdio: ["ignore", "pipe", "inherit"], env: { ...quietEnv, ...env, CI: "true" } },
    generation,
  );
  const chunks = [];
  const output = new Promise((resolve) => child.stdout.on("data", (chunk) => chunks.push(chunk)).on("end", resolve));
  const [code] = await Promise.all([exited, output]);
  if (code !== 0) throw new Error(`wrangler d1 execute exited with ${code}`);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")).map((statement) => statement.results);
}

/**
 * `name` keeps its config and state apart; `config`/`main`/`companionMains` paths from the root; `d1`:
 * migrate first, then run the `seed` SQL; `inspector: false` serves through scripts/worker-host.mjs
 * (console lines to `onLine`); `onErrorLine` takes wrangler's stderr; `logFile` its stdout.
 * @returns {Promise<{ url, inspectorPort, persistTo, configPath, stop: () => Promise<void> }>}
 */
export async function startWorker({
  name,
  port,
  config = "wrangler.toml",
  main,
  companionMains = {},
  d1 = true,
  rateLimit,
  vars = {},
  readyPath = "/health",
  seed,
  env = {},
  inspector = true,
  onLine,
  onErrorLine,
  inspectorPort = port + INSPECTOR_OFFSET,
  logFile,
}) {
  const startedIn = generation;
  const configPath = derivedConfig(config, name, { rateLimit, main });
  const companionConfigs = COMPANIONS.filter(({ needed }) => needed(readFileSync(configPath, "utf8"))).map(
    (companion) => [
      "--config",
      derivedConfig(companion.config, `${name}-${companion.config}`, {
        main: companionMains[companion.config],
        vars: companion.vars ? { ...apiVars(), ...vars } : undefined,
      }),
    ],
  );
  const persistTo = resolve(ROOT, ".wrangler/generated", `${name}-state`);
  rmSync(persistTo, { recursive: true, force: true });
  const local = ["DB", "--local", "--config", configPath, "--persist-to", persistTo];
  if (d1) await wranglerStep(["d1", "migrations", "apply", ...local], env, startedIn);
  if (d1 && seed) await wranglerStep(["d1", "execute", ...local, "--file", resolve(seed)], env, startedIn);

  let spawned;
  if (inspector) {
    const args = [
      "dev",
      "--config",
      configPath,
      ...companionConfigs.flat(),
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      persistTo,
      "--inspector-port",
      String(inspectorPort),
      "--show-interactive-dev-session=false",
      "--log-level",
      logFile ? "log" : "error",
    ];
    for (const [key, value] of Object.entries(vars)) args.push("--var", `${key}:${value}`);
    const stdout = logFile ? openSync(logFile, "w") : "ignore";
    spawned = spawnGroup(
      args,
      { stdio: ["ignore", stdout, onErrorLine ? "pipe" : "inherit"], env: { ...quietEnv, ...env } },
      startedIn,
    );
    if (typeof stdout === "number") closeSync(stdout); // the child has its own copy
    if (onErrorLine) createInterface({ input: spawned.child.stderr }).on("line", onErrorLine);
  } else {
    const args = [
      configPath,
      String(port),
      persistTo,
      ...Object.entries(vars).map(([key, value]) => `${key}=${value}`),
    ];
    const companionsEnv = { WORKER_HOST_COMPANIONS: JSON.stringify(companionConfigs.map(([, path]) => path)) };
    spawned = spawnGroup(
      args,
      { stdio: ["ignore", "pipe", "inherit"], env: { ...quietEnv, ...env, ...companionsEnv } },
      startedIn,
      true,
    );
    // Always drained, so that a Worker that logs every request never blocks on a full pipe.
    createInterface({ input: spawned.child.stdout }).on("line", (line) => onLine?.(line));
  }
  const { child, stop } = spawned;
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(url + readyPath, child, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, inspectorPort, persistTo, configPath, stop };
}

/** The Worker whose Cron Triggers run (wrangler.jobs.toml [triggers]; src/jobs/crons.ts). */
export const CRON_WORKER = "voucher-billing-jobs";

/**
 * Runs a Cron Trigger of `worker` on a local `wrangler dev` through its Local Explorer (the
 * `/cdn-cgi/local/scheduled` route reaches the first Worker only), as if at `scheduledTime` (ms) if
 * given; throws unless the outcome is "ok".
 */
export async function runCron(workerUrl, cron, worker = CRON_WORKER, scheduledTime = undefined) {
  const response = await fetch(`${workerUrl}/cdn-cgi/local/explorer/api/local/scheduled?worker=${worker}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ cron, scheduled_time: scheduledTime }),
  });
  const text = await response.text();
  let outcome;
  try {
    outcome = JSON.parse(text).result?.outcome;
  } catch {
    // reported below
  }
  if (response.status !== 200 || outcome !== "ok")
    throw new Error(
      `cron "${cron}" of ${worker}${scheduledTime ? ` at ${new Date(scheduledTime).toISOString()}` : ""} ` +
        `on ${workerUrl} answered ${response.status}: ${text.slice(0, 200)}`,
    );
}
