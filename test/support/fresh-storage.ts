import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { queued, slowQueued, statementsQueued } from "./queue";

// The first setup file of every test file (vitest.config.ts). The pool runs the files one after
// another in one workerd (isolate: false), so each file starts here from what a fresh workerd would
// give it: an empty D1 (test/apply-migrations.ts, next, migrates it), empty R2 buckets, nothing
// waiting in the recording queues, real timers. (Mocks and spies are restored by vitest between
// files; the modules' own caches, keyed by secret, URL or id, stay warm, as in a deployed isolate.)

vi.useRealTimers();
for (const queue of [queued, slowQueued, statementsQueued]) queue.take();

// Every table and view the migrations made, the last made first, dropped in one transaction; the
// foreign keys are checked at its end, when no table is left to check. Dropping a table drops its
// indexes and triggers, and fires none (https://sqlite.org/lang_droptable.html).
const { results: made } = await env.DB.prepare(
  "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') " +
    "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY rowid DESC",
).all<{ type: "table" | "view"; name: string }>();
if (made.length > 0) {
  const views = made.filter(({ type }) => type === "view");
  const tables = made.filter(({ type }) => type === "table");
  await env.DB.batch([
    env.DB.prepare("PRAGMA defer_foreign_keys = on"),
    ...[...views, ...tables].map(({ type, name }) => env.DB.prepare(`DROP ${type.toUpperCase()} "${name}"`)),
  ]);
}

for (const bucket of [env.DOCUMENTS, env.STATEMENT_FILES]) {
  for (let listed = await bucket.list(); listed.objects.length > 0; listed = await bucket.list()) {
    await bucket.delete(listed.objects.map(({ key }) => key));
  }
}
