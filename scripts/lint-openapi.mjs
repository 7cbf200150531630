// `npm run lint:openapi`: the built OpenAPI document through Redocly and Spectral, offline; passes only
// without errors and warnings, in one line.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildAssets } from "./build-assets.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DOCUMENT = "assets/openapi.json";

/** Runs a linter for its JSON report; anything but a report (a crash) ends the run with its output. */
function report(bin, args) {
  const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
  const run = spawnSync(join(ROOT, "node_modules/.bin", bin), args, { cwd: ROOT, env, encoding: "utf8" });
  try {
    return JSON.parse(run.stdout);
  } catch {
    console.error(`${bin} ${args.join(" ")} exited with ${run.status} without a report:\n${run.stdout}${run.stderr}`);
    process.exit(1);
  }
}

await buildAssets();

const redocly = report("redocly", ["lint", DOCUMENT, "--format=json"]);
const spectral = report("spectral", ["lint", DOCUMENT, "--format=json", "--quiet"]);

// Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
const problems = [
  ...redocly.problems.map(
    (p) => `redocly ${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(", ")}`,
  ),
  ...spectral.map(
    (p) =>
      `spectral ${["error", "warning", "info", "hint"][p.severity]} ${p.code}: ${p.message} at ${p.path.join(".")}`,
  ),
];
if (problems.length > 0) {
  console.error(
    `${DOCUMENT}: ${problems.length} lint problems (a rule may be switched off only in redocly.yaml, ` +
      ".redocly.lint-ignore.yaml or .spectral.yaml, with its reason)",
  );
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
console.log(
  `openapi lint: ${DOCUMENT} has no error and no warning ` +
    `(redocly recommended, ${redocly.totals.ignored} ignored with reasons; spectral:oas)`,
);
