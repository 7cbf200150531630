// The Cron Triggers are the jobs Worker's (wrangler.jobs.toml [triggers]; the API Worker's wrangler.toml
// has none) and run on a real `wrangler dev` of the three Workers the way the README (its curl, run as
// written), the load and scripts/local-worker.mjs's runCron() run them: the Local Explorer's
// `POST /cdn-cgi/local/explorer/api/local/scheduled?worker=voucher-billing-jobs`, on the dev server's
// one URL. Each answers outcome "ok" and its job logs its line. What does not work is held too, so
// that the README never names it: `/cdn-cgi/local/scheduled` reaches the first Worker only (the API
// Worker: 500, it has no crons), and `/__scheduled` is the API's own 404 without --test-scheduled.
// A wrangler upgrade that moves or breaks the route fails here, not silently in the load.
// Ports: free from DEV_SERVER_PORT (default 8900) + 100 on.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { CRON_WORKER, runCron, startWorker } from "../../scripts/local-worker.mjs";
import { firstFreePorts, INSPECTOR_OFFSET } from "../../scripts/ports.mjs";

const cronsOf = (config) =>
  JSON.parse(
    readFileSync(new URL(`../../${config}`, import.meta.url), "utf8").match(/^crons = (\[.*\])$/m)?.[1] ?? "[]",
  );

test("each Cron Trigger of the jobs Worker runs through the Local Explorer and logs its job", {
  timeout: 120_000,
}, async (t) => {
  assert.deepEqual(cronsOf("wrangler.jobs.toml"), ["* * * * *", "17 * * * *", "30 5 * * *"]);
  assert.deepEqual(cronsOf("wrangler.toml"), [], "the API Worker has no Cron Triggers");
  assert.equal(
    CRON_WORKER,
    readFileSync(new URL("../../wrangler.jobs.toml", import.meta.url), "utf8").match(/^name = "(.+)"$/m)[1],
  );

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

  const [everyMinute, hourly, daily] = cronsOf("wrangler.jobs.toml");
  // The README's curl, as written (its host aside), runs the per-minute cron; runCron() the hourly one.
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const curl = readme.match(/```sh\n(curl -X POST "[^\n]*local\/scheduled[^`]*)```/)?.[1];
  assert.ok(curl?.includes(`{"cron":"${everyMinute}"}`), "the README shows the per-minute cron's curl");
  const answer = execFileSync("bash", ["-c", curl.replaceAll("http://127.0.0.1:8787", worker.url)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"], // curl's progress meter
  });
  assert.equal(JSON.parse(answer).result.outcome, "ok", answer);
  await runCron(worker.url, hourly);
  // The daily dunning run (docs/api.md part 18), for today: it queues its scan, which finds nothing.
  await runCron(worker.url, daily);
  // The same route for the API Worker: it runs, and fails, as it exports no scheduled().
  await assert.rejects(
    runCron(worker.url, everyMinute, "voucher-billing-api"),
    /answered 200: .*"outcome":"exception"/,
  );
  // wrangler's own route, the one its warning prints, reaches the first Worker only: the API Worker.
  const primary = await fetch(`${worker.url}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(everyMinute)}`);
  assert.deepEqual([primary.status, await primary.text()], [500, "exception"]);
  // Without --test-scheduled, `/__scheduled` is the API's own 404: a cron sent there never runs.
  const legacy = await fetch(`${worker.url}/__scheduled?cron=${encodeURIComponent(everyMinute)}`);
  assert.equal(legacy.status, 404, await legacy.text());

  // With several Workers, wrangler dev puts the Worker's name in brackets before each line.
  const logged = () =>
    readFileSync(logFile, "utf8")
      .split("\n")
      .filter((line) => line.includes('{"job"'))
      .map((line) => {
        const [, name, json] = line.match(/^\[([^\]]*)\] (\{"job".*)$/);
        return `${name} ${JSON.parse(json).job}`;
      });
  const dunning = `${CRON_WORKER} dunning`;
  const others = () => logged().filter((job) => job !== dunning);
  // The lines take a moment to reach the file, longer on a busy machine: read until all are in, not a
  // fixed 500 ms, then once more, so that one more would show.
  for (
    const deadline = Date.now() + 15_000;
    (others().length < 4 || !logged().includes(dunning)) && Date.now() < deadline;
  )
    await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const jobs = logged();
  // Every minute: events sent again, then stalled bank statements, then overdue deliveries; every hour: the
  // sweep; every day: dunning (its run's start, then its scans' lines from the dunning queue's consumer).
  assert.ok(jobs.includes(dunning), jobs.join("\n"));
  assert.deepEqual(
    jobs.filter((job) => job !== dunning),
    [
      `${CRON_WORKER} redispatch_events`,
      `${CRON_WORKER} resume_statements`,
      `${CRON_WORKER} redispatch_deliveries`,
      `${CRON_WORKER} sweep`,
    ],
  );
});
