// The baselines must reach their Worker the way the service's requests reach it. The service has
// static assets ([assets] in wrangler.toml), so every request passes the asset router and its
// lookup before the Worker runs: a hop a Worker without assets does not have, and no code of the
// service. The baselines carry the same [assets] table; this checks that they still do.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

/** The [assets] table of a wrangler config: its keys and values, `directory` made absolute. */
function assetsTable(config) {
  const path = resolve(ROOT, config);
  const table = /^\[assets\]\n((?:(?!\[).*\n?)*)/m.exec(readFileSync(path, "utf8"))?.[1] ?? "";
  const entries = table
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter(Boolean)
    .map((line) => line.split(/\s*=\s*/, 2))
    .map(([key, value]) => [key, key === "directory" ? resolve(dirname(path), JSON.parse(value)) : value]);
  return JSON.stringify(Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b))));
}

export function checkSameRouting(service, baselines) {
  const expected = assetsTable(service);
  for (const baseline of baselines) {
    if (assetsTable(baseline) !== expected)
      throw new Error(
        `${baseline}: its [assets] table is not ${service}'s (${expected}); ` +
          "the ratio would price the asset layer, not the service",
      );
  }
}
