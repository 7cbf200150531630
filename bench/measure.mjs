// Size and startup of the service as it would be deployed, without an account or network:
// `wrangler deploy --dry-run` builds the upload, `wrangler check startup` profiles its import locally.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { quietEnv, wranglerSync } from "../scripts/wrangler.mjs";

const wrangler = (args, env, cwd) =>
  wranglerSync(args, { stdio: "ignore", env: { ...quietEnv, ...env, CI: "true" }, cwd });

/** Builds the service in `cwd` once: `outdir` gets index.js, `bundle` the upload form `check startup` reads. */
export function buildService(dir, env = {}, cwd = undefined) {
  const outdir = join(dir, "dist");
  const bundle = join(dir, "worker.bundle");
  wrangler(["deploy", "--dry-run", "--minify", "--outdir", outdir, "--outfile", bundle], env, cwd);
  return { script: join(outdir, "index.js"), bundle };
}

/** gzip level 6, as wrangler reports "Total Upload: ... / gzip: ..." */
export const gzipKiB = (file) => gzipSync(readFileSync(file)).length / 1024;

/**
 * Startup of one `wrangler check startup` profile: the samples from the first to the last with a frame
 * of the Worker's module, times the median interval (a descheduled thread's gap does not count).
 */
export function startupMsOf(profile, mainModule = "index.js") {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])));
  const inWorker = (id) => {
    for (let node = id; node !== undefined; node = parentOf.get(node))
      if (byId.get(node).callFrame.url.endsWith(`/${mainModule}`)) return true;
    return false;
  };
  const first = profile.samples.findIndex(inWorker);
  const last = profile.samples.findLastIndex(inWorker);
  // On a saturated machine the sampler thread can miss the whole startup: no figure, not zero.
  if (first < 0) return undefined;
  return ((last - first + 1) * median(profile.timeDeltas.slice(1))) / 1000;
}

/** Median startup over `runs` profiles (one without samples is retaken, up to 2 × runs tries). */
let profiles = 0;
export function startupMs(dir, bundle, runs, env = {}) {
  const figures = [];
  for (let attempt = 0; figures.length < runs && attempt < 2 * runs; attempt++) {
    const outfile = join(dir, `startup-${profiles++}.cpuprofile`);
    wrangler(["check", "startup", "--worker", bundle, "--outfile", outfile], env);
    const figure = startupMsOf(JSON.parse(readFileSync(outfile, "utf8")));
    if (figure !== undefined) figures.push(figure);
  }
  return { median: figures.length ? median(figures) : undefined, runs: figures };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * This checkout's start-up against commit `ref`'s (built in a temporary worktree with these
 * node_modules), profiled in turns, the first side alternating, `runs` profiles each.
 */
export function startupAgainst(ref, { runs, env = {}, root = ROOT }) {
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
      { ...buildService(join(work, "this"), env, root), figures: [] },
      { ...buildService(join(work, "other"), env, other), figures: [] },
    ];
    for (let round = 0; round < runs; round++) {
      for (const side of round % 2 ? [...sides].reverse() : sides)
        side.figures.push(...startupMs(work, side.bundle, 1, env).runs);
    }
    const [mine, theirs] = sides.map((side) => side.figures);
    const ratio = mine.length && theirs.length ? median(mine) / median(theirs) : undefined;
    return { mine, theirs, ratio, gzipKiB: gzipKiB(sides[0].script) };
  } finally {
    try {
      if (added) git("worktree", "remove", "--force", other);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}
