// `npm run deploy -- --dry-run --outdir <dir>` (scripts/deploy.mjs) builds the three Workers without an
// account, each into its own folder: one folder for all three held only the last one's index.js (the
// API's over the jobs Worker's). The bundles are the Workers they should be: the Cron Triggers' jobs
// in the jobs Worker's (wrangler.jobs.toml [triggers]), not in the API Worker's. Starts no dev server.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

test("the script's comment names a section of docs/api.md that exists", () => {
  const comment = readFileSync(join(ROOT, "scripts/deploy.mjs"), "utf8")
    .match(/^(\/\/.*\n)+/)[0]
    .replace(/\n\/\/ /g, " ");
  const [, part, title] = comment.match(/docs\/api\.md part (\d+), "([^"]+)"/) ?? [];
  assert.ok(title, comment);
  const docs = readFileSync(join(ROOT, "docs/api.md"), "utf8");
  const section = docs.slice(docs.indexOf(`\n## ${part}. `), docs.indexOf(`\n## ${Number(part) + 1}. `));
  assert.ok(section.includes(`\n### ${title}\n`), `docs/api.md part ${part} has "### ${title}"`);
});

test("a dry run builds each Worker into a folder of its own", { timeout: 300_000 }, (t) => {
  const out = mkdtempSync(join(tmpdir(), "deploy-dry-run-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const run = spawnSync(process.execPath, ["scripts/deploy.mjs", "--dry-run", "--outdir", out], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  assert.equal(run.status, 0, run.stderr);
  const jobsConfig = join(ROOT, ".wrangler/generated/deploy-jobs.toml");
  assert.deepEqual(
    run.stdout.split("\n").filter((line) => line.startsWith("wrangler deploy ")),
    [
      `wrangler deploy --config wrangler.documents.toml --outdir ${join(out, "documents")}`,
      `wrangler deploy --config ${jobsConfig} --outdir ${join(out, "jobs")}`,
      `wrangler deploy --config wrangler.toml --outdir ${join(out, "api")}`,
    ],
  );
  const bundle = (path) => readFileSync(join(out, path), "utf8");
  assert.ok(existsSync(join(out, "documents/worker.js")), "the documents Worker");
  const [api, jobs] = [bundle("api/index.js"), bundle("jobs/index.js")];
  assert.notEqual(api, jobs);
  for (const job of ["redispatch_events", "resume_statements", "sweep"]) {
    assert.ok(jobs.includes(`job:"${job}"`), `the jobs Worker runs ${job}`);
    assert.ok(!api.includes(`job:"${job}"`), `the API Worker does not carry ${job}`);
  }
});
