// Writes the generated assets (git-ignored): assets/openapi.json, built here so that zod's JSON Schema
// converter stays out of the bundle, and /docs' reference UI; wrangler.toml's [build] command. A file
// is rewritten only when its content changed.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importSource } from "./import-source.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DOCUMENT_FILE = join(ROOT, "assets/openapi.json");
const SCALAR_FILE = join(ROOT, "assets/docs/scalar-standalone.js");
const SCALAR = "@scalar/api-reference";

/** The document of the route table (src/app.ts), from src/ bundled for Node (scripts/import-source.mjs). */
async function openApiJson() {
  const { default: document } = await importSource(
    [
      'import { endpoints } from "./src/app";',
      'import { openApiDocument } from "./src/openapi/document";',
      "export default openApiDocument(endpoints);",
    ].join("\n"),
  );
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Scalar's browser bundle, refused unless node_modules holds the version package.json pins. */
function scalarBundle() {
  const require = createRequire(join(ROOT, "package.json"));
  // The package's `exports` hides package.json: its main entry is dist/index.js.
  const dir = resolve(dirname(require.resolve(SCALAR)), "..");
  const installed = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  const pinned = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies[SCALAR];
  if (installed !== pinned)
    throw new Error(`${SCALAR} ${installed} is installed but package.json pins ${pinned}: run npm ci`);
  return readFileSync(join(dir, "dist/browser/standalone.js"));
}

function writeIfChanged(file, content) {
  let current;
  try {
    current = readFileSync(file);
  } catch {
    // not built yet
  }
  if (current?.equals(Buffer.from(content))) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

export async function buildAssets() {
  writeIfChanged(SCALAR_FILE, scalarBundle());
  writeIfChanged(DOCUMENT_FILE, await openApiJson());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildAssets();
