// Bundles a companion Worker (the documents Worker, wrangler.documents.toml; the jobs Worker,
// wrangler.jobs.toml) for the tests, which run it beside the API Worker as the target of its service
// bindings (vitest.config.ts: RENDERER, STATEMENT_READER). wrangler builds them itself for `npm run dev`
// and deploys.
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BINARY_ASSETS } from "./import-source.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The name, entry and compatibility date of the Worker of `configFile`, and its bundle's path once built. */
export async function buildCompanionWorker(configFile) {
  const config = readFileSync(join(ROOT, configFile), "utf8");
  const setting = (name) => new RegExp(`^${name} = "([^"]+)"`, "m").exec(config)?.[1];
  const worker = { name: setting("name"), main: setting("main"), compatibilityDate: setting("compatibility_date") };
  // Written under .wrangler/ (git-ignored).
  const outfile = join(ROOT, `.wrangler/companions/${worker.name}.mjs`);
  await build({
    entryPoints: [join(ROOT, worker.main)],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    external: ["cloudflare:*"],
    loader: BINARY_ASSETS,
    target: "es2022", // binary assets decoded by a helper, not Uint8Array.fromBase64 (Node 24 lacks it)
    logLevel: "error",
  });
  return { ...worker, scriptPath: outfile };
}
