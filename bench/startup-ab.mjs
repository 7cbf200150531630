// `npm run bench:startup -- [<git ref>] [--runs <n>]`: the start-up of this checkout's Worker against
// that of another commit (default HEAD~1), both built as `npm run bench` builds the service and
// profiled in turns with `wrangler check startup`, so that both see the same moments of a noisy
// machine. Prints both medians and their ratio; the last line is one JSON object. A start-up change
// is judged by this ratio, not by two figures from different minutes (BENCHMARKS.md). The other
// commit is built with this checkout's node_modules.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildService, median, startupMs } from "./measure.mjs";

process.env.WRANGLER_SEND_METRICS = "false";
const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: "string", default: "25" } },
});
const ref = positionals[0] ?? "HEAD~1";
const runs = Number(flags.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number from 1, not ${flags.runs}`);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const git = (...args) => execFileSync("git", ["-C", root, ...args], { stdio: ["ignore", "ignore", "inherit"] });
const work = mkdtempSync(join(tmpdir(), "startup-ab-"));
const other = join(work, "checkout");

// A worktree left by an interrupted run is forgotten first.
git("worktree", "prune");
let added = false;
try {
  git("worktree", "add", "--detach", "--force", other, ref);
  added = true;
  symlinkSync(join(root, "node_modules"), join(other, "node_modules"));
  const sides = [
    { name: "this checkout", ...buildService(join(work, "this"), {}, root), figures: [] },
    { name: ref, ...buildService(join(work, "other"), {}, other), figures: [] },
  ];
  // Turns alternate which side goes first, so neither always profiles right after the other.
  for (let round = 0; round < runs; round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides)
      side.figures.push(...startupMs(work, side.bundle, 1).runs);
  }
  const [mine, theirs] = sides.map((side) => median(side.figures));
  for (const side of sides)
    console.error(
      `${side.name}: median ${median(side.figures).toFixed(1)} ms ` +
        `of ${side.figures.map((ms) => ms.toFixed(1)).join(" ")}`,
    );
  console.log(
    JSON.stringify({
      ref,
      runs,
      startup_ms: round1(mine),
      other_startup_ms: round1(theirs),
      startup_ratio: Math.round((mine / theirs) * 1000) / 1000,
    }),
  );
} finally {
  try {
    if (added) git("worktree", "remove", "--force", other);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function round1(ms) {
  return Math.round(ms * 10) / 10;
}
