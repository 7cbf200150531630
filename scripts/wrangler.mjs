// Runs the project's wrangler without prompts, telemetry or a login (shared by the npm scripts).
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

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

export function wranglerSpawn(args, options = {}) {
  return spawn(process.execPath, [bin, ...args], { env: quietEnv, ...options });
}
