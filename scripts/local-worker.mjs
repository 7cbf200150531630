// Starts a Worker under `wrangler dev` on loopback with its own migrated local D1, for the load and
// bench scripts (never on the developer's `.wrangler/state`). Returns { url, stop }.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { wranglerSpawn, wranglerSync } from "./wrangler.mjs";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

/**
 * A copy of a wrangler config with absolute paths (it is written elsewhere) and, optionally, a
 * different rate limit: load generators speak for many clients through few tokens.
 */
function derivedConfig(config, name, { rateLimit }) {
  const source = resolve(ROOT, config);
  let toml = readFileSync(source, "utf8")
    .replace(/^main = "(.+)"$/m, (_, main) => `main = "${resolve(dirname(source), main)}"`)
    .replace(/^migrations_dir = "(.+)"$/m, (_, dir) => `migrations_dir = "${resolve(dirname(source), dir)}"`);
  if (rateLimit) toml = toml.replace(/simple = \{ limit = \d+, period = (\d+) \}/, `simple = { limit = ${rateLimit}, period = $1 }`);
  const dir = resolve(ROOT, ".wrangler/generated");
  mkdirSync(dir, { recursive: true });
  const path = resolve(dir, `${name}.toml`);
  writeFileSync(path, toml);
  return path;
}

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

/**
 * @param {object} options
 * @param {string} options.name       distinguishes config and state directories
 * @param {number} options.port
 * @param {string} [options.config]   wrangler config, relative to the project root
 * @param {boolean} [options.d1]      apply the config's D1 migrations first
 * @param {number} [options.rateLimit] requests per period per principal
 * @param {Record<string,string>} [options.vars]
 * @param {string} [options.readyPath]
 */
export async function startWorker({ name, port, config = "wrangler.toml", d1 = true, rateLimit, vars = {}, readyPath = "/health", log = false }) {
  const configPath = derivedConfig(config, name, { rateLimit });
  const persistTo = resolve(ROOT, ".wrangler/generated", `${name}-state`);
  rmSync(persistTo, { recursive: true, force: true });
  if (d1) wranglerSync(["d1", "migrations", "apply", "DB", "--local", "--config", configPath, "--persist-to", persistTo], { stdio: "ignore" });

  const args = ["dev", "--config", configPath, "--ip", "127.0.0.1", "--port", String(port), "--persist-to", persistTo, "--inspector-port", String(port + 1000), "--show-interactive-dev-session=false", "--log-level", "error"];
  for (const [key, value] of Object.entries(vars)) args.push("--var", `${key}:${value}`);
  const child = wranglerSpawn(args, { stdio: ["ignore", log ? "inherit" : "ignore", "inherit"], detached: true });
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise((done) => {
      if (child.exitCode !== null) return done();
      child.once("exit", () => done());
      try {
        process.kill(-child.pid, "SIGTERM"); // the whole process group: wrangler and its workerd
      } catch {
        done();
      }
    });
  try {
    await waitUntilReady(url + readyPath, child, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, persistTo, configPath, stop };
}
