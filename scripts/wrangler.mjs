// Runs the project's wrangler without prompts, telemetry or a login (shared by the npm scripts).
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// wrangler's exports map hides its files; its package.json is exported and names the bin.
const manifest = createRequire(import.meta.url).resolve("wrangler/package.json");
const bin = join(dirname(manifest), createRequire(import.meta.url)(manifest).bin.wrangler);

export const quietEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  // The banner asks the npm registry whether a newer wrangler exists: no network, no banner.
  WRANGLER_HIDE_BANNER: "true",
};

/** Runs a wrangler command to completion; `CI=true` makes it take defaults instead of asking. */
export function wranglerSync(args, options = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    stdio: "inherit",
    env: { ...quietEnv, CI: "true" },
    ...options,
  });
  if (result.status !== 0) throw new Error(`wrangler ${args.join(" ")} exited with ${result.status}`);
}

/** Applies the local D1's missing migrations in one line; wrangler's output and exit code only on failure. */
export function applyLocalMigrations() {
  const command = ["d1", "migrations", "apply", "DB", "--local"];
  const result = spawnSync(process.execPath, [bin, ...command], {
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    env: { ...quietEnv, CI: "true" },
  });
  if (result.status !== 0) {
    process.stdout.write(result.stdout ?? "");
    process.stderr.write(result.stderr ?? "");
    console.error(`wrangler ${command.join(" ")} failed (${result.error?.message ?? `exit ${result.status}`}): above.`);
    process.exit(result.status || 1);
  }
  if (/No migrations to apply/.test(result.stdout)) {
    console.log("Local D1 database: up to date, no migration to apply.");
    return;
  }
  const names = [...new Set(result.stdout.match(/\b\d{4}_[\w.-]*?\.sql\b/g) ?? [])];
  const which = names.length > 1 ? ` (${names[0]} to ${names.at(-1)})` : names.length === 1 ? ` (${names[0]})` : "";
  console.log(
    `Local D1 database: applied ${names.length || "the new"} migration${names.length === 1 ? "" : "s"}${which}.`,
  );
}

// A multi-Worker `wrangler dev` prefixes a [build] Worker's lines `[undefined]`: wrangler-worker-names.mjs fixes it.
const workerNames = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "wrangler-worker-names.mjs")).href;

/** wrangler `args` as a child process; `preloads`: more modules (file URLs) loaded into it first. */
export function wranglerSpawn(args, options = {}, preloads = []) {
  const preload = [...(args[0] === "dev" ? [workerNames] : []), ...preloads].flatMap((url) => ["--import", url]);
  return spawn(process.execPath, [...preload, bin, ...args], { env: quietEnv, ...options });
}
