// Bundles the documents Worker (wrangler.documents.toml) for the tests, which run it beside the API
// Worker as the target of its RENDERER binding (vitest.config.ts). wrangler builds it itself for
// `npm run dev` and deploys.
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BINARY_ASSETS } from "./import-source.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const config = readFileSync(join(ROOT, "wrangler.documents.toml"), "utf8");
const setting = (name) => new RegExp(`^${name} = "([^"]+)"`, "m").exec(config)?.[1];

export const DOCUMENTS_WORKER = {
  name: setting("name"),
  main: setting("main"),
  compatibilityDate: setting("compatibility_date"),
};

/** Writes the bundle under .wrangler/ (git-ignored) and returns its path. */
export async function buildDocumentsWorker() {
  const outfile = join(ROOT, ".wrangler/documents-worker/index.mjs");
  await build({
    entryPoints: [join(ROOT, DOCUMENTS_WORKER.main)],
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
  return outfile;
}
