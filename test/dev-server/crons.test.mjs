// Both Cron Triggers of wrangler.toml run on a real `wrangler dev` through the route that
// scripts/local-worker.mjs's runCron(), the load and README use (`/cdn-cgi/local/scheduled`): each
// answers 200 and its job logs its line. A wrangler upgrade that moves or breaks the route fails here,
// not silently in the load. Ports: free from DEV_SERVER_PORT (default 8900) + 100 on.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCron, startWorker } from "../../scripts/local-worker.mjs";
import { firstFreePorts, INSPECTOR_OFFSET } from "../../scripts/ports.mjs";

test("each Cron Trigger runs through /cdn-cgi/local/scheduled and logs its job", { timeout: 120_000 }, async (t) => {
  const port = await firstFreePorts(
    Number(process.env.DEV_SERVER_PORT ?? 8900) + 100,
    [0, INSPECTOR_OFFSET],
    "DEV_SERVER_PORT",
  );
  const logFile = join(mkdtempSync(join(tmpdir(), "crons-")), "worker.log");
  const worker = await startWorker({
    name: "crons-test",
    port,
    logFile,
    vars: { JWT_SECRET: randomBytes(32).toString("hex") },
  });
  t.after(() => worker.stop());

  const toml = readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");
  const crons = JSON.parse(toml.match(/^crons = (\[.*\])$/m)[1]);
  assert.deepEqual(crons, ["* * * * *", "17 * * * *"]);
  await runCron(worker.url, crons[0]);
  await runCron(worker.url, crons[1]);
  // Without --test-scheduled, `/__scheduled` is the Worker's own 404: a cron sent there never runs.
  const legacy = await fetch(`${worker.url}/__scheduled?cron=${encodeURIComponent(crons[0])}`);
  assert.equal(legacy.status, 404, await legacy.text());

  await new Promise((resolve) => setTimeout(resolve, 500)); // the log line's way to the file
  // With the documents Worker beside it, wrangler dev puts the Worker's name in brackets before each line.
  const jobs = readFileSync(logFile, "utf8")
    .split("\n")
    .map((line) => line.replace(/^\[[^\]]*\] /, ""))
    .filter((line) => line.startsWith('{"job"'))
    .map((line) => JSON.parse(line).job);
  // Every minute: events sent again, then stalled bank statements; every hour: the sweep.
  assert.deepEqual(jobs, ["redispatch_events", "resume_statements", "sweep"]);
});
