// Modules of src/ (TypeScript) imported into a Node script: bundled in memory by esbuild, then evaluated.
import { build } from "esbuild";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The documents' binary assets (fonts, the colour profile), as wrangler.documents.toml's Data rule. */
export const BINARY_ASSETS = { ".woff": "binary", ".icc": "binary" };

/** The exports of `source` (ES module text whose imports are relative to the project root). */
export async function importSource(source) {
  const { outputFiles } = await build({
    stdin: { contents: source, resolveDir: ROOT, loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
    loader: BINARY_ASSETS,
    target: "es2022", // binary assets decoded by a helper, not Uint8Array.fromBase64 (Node 24 lacks it)
    logLevel: "error",
  });
  return import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].contents).toString("base64")}`);
}
