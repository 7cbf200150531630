// Size and startup of the service as it would be deployed, without an account or network:
// `wrangler deploy --dry-run` builds the upload, `wrangler check startup` profiles its import locally.
import { readFileSync } from "node:fs";
import { join } from "node:path";
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
 * Startup time of one `wrangler check startup` profile. The profiler samples the running JavaScript
 * every ~1 ms; the startup is the run of samples from the first to the last one whose stack holds a
 * frame of the Worker's own module (its top-level code, compilation and GC in between included),
 * times the profile's median sampling interval. Counting samples rather than summing the gaps between
 * them keeps a descheduled thread on a shared machine (a 10-100 ms gap) out of the figure.
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

/**
 * Median startup over `runs` profiles of the same bundle (a profile without samples is taken again, up
 * to twice as many tries).
 */
export function startupMs(dir, bundle, runs, env = {}) {
  const figures = [];
  for (let attempt = 0; figures.length < runs && attempt < 2 * runs; attempt++) {
    const outfile = join(dir, `startup-${attempt}.cpuprofile`);
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
