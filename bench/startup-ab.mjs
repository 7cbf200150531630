// `npm run bench:startup -- [<git ref>] [--runs <n>]`: the start-up of this checkout's Worker against
// that of another commit (default HEAD~1), both built as `npm run bench` builds the service and
// profiled in turns with `wrangler check startup`, so that both see the same moments of a noisy
// machine (bench/measure.mjs, startupAgainst; `npm run bench` runs the same A/B). Prints both medians
// and their ratio; the last line is one JSON object. A start-up change is judged by this ratio, not by
// two figures from different minutes (BENCHMARKS.md).
import { parseArgs } from "node:util";
import { median, startupAgainst } from "./measure.mjs";

process.env.WRANGLER_SEND_METRICS = "false";
const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: "string", default: "25" } },
});
const ref = positionals[0] ?? "HEAD~1";
const runs = Number(flags.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number from 1, not ${flags.runs}`);

const { mine, theirs, ratio } = startupAgainst(ref, { runs });
for (const [name, figures] of [
  ["this checkout", mine],
  [ref, theirs],
])
  console.error(`${name}: median ${median(figures).toFixed(1)} ms of ${figures.map((ms) => ms.toFixed(1)).join(" ")}`);
const round1 = (ms) => Math.round(ms * 10) / 10;
console.log(
  JSON.stringify({
    ref,
    runs,
    startup_ms: round1(median(mine)),
    other_startup_ms: round1(median(theirs)),
    startup_ratio: ratio === undefined ? null : Math.round(ratio * 1000) / 1000,
  }),
);
