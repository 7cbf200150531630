// Bundles a companion Worker (documents, jobs) for the tests' service bindings (vitest.config.ts).
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
