// `npm run test:build`: the API Worker as `wrangler deploy` would upload it (a dry run, no account
// needed), guarded against accidents, not held to a budget that decides where code goes.
//
// - At most 128 KiB gzip. Today's bundle is about 70 KiB (BENCHMARKS.md): the limit is far enough above
//   it that a feature is never a negotiation over bytes, and far below what Workers allow (3 MiB gzip on
//   the free plan, 10 MiB paid), so that what it catches is an accident: a large dependency imported into
//   the API Worker, such as the PDF writer and its fonts or the statements' XML parser (saxes).
// - None of the other Workers' code (esbuild's metafile names every module the bundle holds): not the
//   jobs Worker's handlers (those of the routes the API Worker passes on, src/http/pass-on.ts; it may
//   hold their specs, which the route table, src/app.ts, lists) nor its consumers, not the documents
//   Worker's renderers (src/documents/: the UBL, CII and PDF writers), the fonts, the QR encoder or saxes.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { gzipSync } from "node:zlib";
import { wranglerSync } from "../../scripts/wrangler.mjs";

const LIMIT_KIB = 128;
const dir = mkdtempSync(join(tmpdir(), "api-bundle-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A Worker's upload, as `wrangler deploy --dry-run` builds it, and esbuild's metafile of it. */
function built(name, config) {
  const outdir = join(dir, name);
  const metafile = join(dir, `${name}.meta.json`);
  wranglerSync(["deploy", "-c", config, "--dry-run", "--minify", "--outdir", outdir, "--metafile", metafile], {
    stdio: "ignore",
  });
  return { script: join(outdir, "index.js"), inputs: JSON.parse(readFileSync(metafile, "utf8")).inputs };
}

const api = built("api", "wrangler.toml");

/**
 * The route handlers of the jobs Worker: the `.handlers.ts` modules its entry reaches other than
 * through the route table (src/app.ts), which both Workers import.
 */
function jobsHandlers() {
  const { inputs } = built("jobs", "wrangler.jobs.toml");
  const found = new Set();
  const seen = new Set();
  const visit = (path) => {
    if (seen.has(path) || path === "src/app.ts") return;
    seen.add(path);
    if (path.endsWith(".handlers.ts")) found.add(path);
    for (const { path: next } of inputs[path]?.imports ?? []) visit(next);
  };
  visit("src/jobs/index.ts");
  return [...found].sort();
}

/** The modules that import `path` in the API bundle: where an accident came in. */
const importersOf = (path) =>
  Object.entries(api.inputs)
    .filter(([, { imports }]) => imports.some((i) => i.path === path))
    .map(([importer]) => importer);

test(`the API Worker's bundle is at most ${LIMIT_KIB} KiB gzip`, (t) => {
  const kib = gzipSync(readFileSync(api.script)).length / 1024;
  t.diagnostic(`${kib.toFixed(3)} KiB gzip`);
  const largest = Object.entries(api.inputs)
    .sort(([, a], [, b]) => b.bytes - a.bytes)
    .slice(0, 5)
    .map(([path, { bytes }]) => `${path} (${(bytes / 1024).toFixed(1)} KiB)`);
  assert.ok(
    kib <= LIMIT_KIB,
    `${kib.toFixed(3)} KiB gzip, over ${LIMIT_KIB}: has a large dependency come in? Its largest modules: ` +
      largest.join(", "),
  );
});

test("the API Worker's bundle holds none of the jobs Worker's handlers nor the heavy modules", () => {
  const handlers = jobsHandlers();
  // The jobs Worker serves routes (src/http/pass-on.ts), so there are handlers to keep out.
  assert.ok(handlers.length > 0, "found no handler of the jobs Worker");
  const heavy = [
    /^src\/jobs\//,
    /^src\/events\/consumer\.ts$/,
    /^src\/payments\/(statements|camt053|pain008)/,
    /^src\/documents\//,
    /^node_modules\/(saxes|@fontsource|lean-qr)\//,
  ];
  const carried = Object.keys(api.inputs).filter(
    (path) => handlers.includes(path) || heavy.some((pattern) => pattern.test(path)),
  );
  assert.deepEqual(
    carried.map((path) => `${path}, imported by ${importersOf(path).join(", ")}`),
    [],
    "the API bundle carries the jobs or documents Worker's code",
  );
  // And in the bytes: strings only the renderers write (UBL's and CII's namespaces, the PDF's PDF/A
  // extension schema), only the jobs Worker's consumer sends (push through FCM) or its statements' reader
  // knows (camt.053's root element).
  const code = readFileSync(api.script, "utf8");
  for (const marker of [
    "urn:oasis:names:specification:ubl:schema",
    "CrossIndustryInvoice:100",
    "pdfaExtension",
    "fcm.googleapis.com",
    "BkToCstmrStmt",
  ])
    assert.ok(!code.includes(marker), `the API bundle contains ${marker}`);
});
