import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../src/jobs/index";
import { call, newCardOrder, token, unique } from "./support/api";

const CRON = "17 * * * *"; // wrangler.jobs.toml [triggers] crons
const HOUR_MS = 60 * 60 * 1000;

/** Inserts `count` stored responses of one principal expiring at `expiresAt(i)`, in one statement. */
async function seed(principal: string, count: number, expiresAt: (i: number) => string): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => [
    principal,
    `key-${i}`,
    "0".repeat(64),
    201,
    '{"data":[]}',
    expiresAt(i),
  ]);
  // D1 binds at most 100 parameters per statement: 16 rows of 6 values.
  const statements = [];
  for (let i = 0; i < rows.length; i += 16) {
    const chunk = rows.slice(i, i + 16);
    statements.push(
      env.DB.prepare(
        "INSERT INTO idempotency_keys (principal, key, request_hash, status, body, expires_at) " +
          `VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}`,
      ).bind(...chunk.flat()),
    );
  }
  await env.DB.batch(statements);
}

async function keysOf(principal: string): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT key FROM idempotency_keys WHERE principal = ? ORDER BY key")
    .bind(principal)
    .all<{ key: string }>();
  return results.map((row) => row.key);
}

const countOf = async (principal: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM idempotency_keys WHERE principal = ?")
    .bind(principal)
    .first<number>("n"))!;

/** Runs the Cron Trigger as Cloudflare would, and waits for the work it left to waitUntil. */
async function runCron(): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: CRON }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("the Cron Trigger", () => {
  beforeEach(async () => {
    await env.DB.prepare("DELETE FROM idempotency_keys").run();
  });

  it("deletes every expired stored response, over several 500-row chunks, and keeps every live one", {
    timeout: 120_000,
  }, async () => {
    const expired = unique("expired");
    const live = unique("live");
    const now = Date.now();
    // 1,200 expired rows: two full chunks and a partial one, from a second to 30 days ago.
    await seed(expired, 1200, (i) => new Date(now - 1000 - i * 36 * 60 * 1000).toISOString());
    // Live rows from a minute to 24 hours ahead, and one far in the future.
    await seed(live, 300, (i) => new Date(now + 60_000 + i * 4 * 60 * 1000).toISOString());
    await seed(`${live}-far`, 1, () => "2999-12-31T23:59:59.999Z");
    const liveKeys = await keysOf(live);
    expect(await countOf(expired)).toBe(1200);
    expect(liveKeys).toHaveLength(300);

    const log = vi.spyOn(console, "log");
    try {
      await runCron();
      expect(log.mock.calls.map(([line]) => String(line))).toContain(
        JSON.stringify({ job: "sweep", expired_idempotency_keys: 1200, expired_events: 0 }),
      );
    } finally {
      log.mockRestore();
    }

    expect(await countOf(expired)).toBe(0);
    expect(await keysOf(live)).toStrictEqual(liveKeys);
    expect(await countOf(`${live}-far`)).toBe(1);
  });

  it("ends when the expired rows fill whole chunks exactly (1,000 rows)", { timeout: 120_000 }, async () => {
    const expired = unique("expired");
    await seed(expired, 1000, () => "2020-01-01T00:00:00.000Z");
    await runCron();
    expect(await countOf(expired)).toBe(0);
  });

  it("deletes nothing when nothing has expired", async () => {
    const live = unique("live");
    await seed(live, 10, (i) => new Date(Date.now() + HOUR_MS * (i + 1)).toISOString());
    await runCron();
    expect(await countOf(live)).toBe(10);
  });

  it("leaves a live key of the API working, and frees an expired one for a new request", async () => {
    const sub = unique("user");
    const customer = unique("customer");
    const auth = await token({ sub, customer_id: customer });
    const send = (key: string) =>
      call("/card_orders", { token: auth, json: newCardOrder, headers: { "Idempotency-Key": key } });
    const first = await (await send("live-key")).text();
    expect((await send("old-key")).status).toBe(201);
    await env.DB.prepare("UPDATE idempotency_keys SET expires_at = ? WHERE principal = ? AND key = ?")
      .bind(new Date(Date.now() - HOUR_MS).toISOString(), sub, "old-key")
      .run();

    await runCron();

    expect(await keysOf(sub)).toStrictEqual(["live-key"]);
    const replay = await send("live-key");
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.text()).toBe(first);
    const fresh = await send("old-key");
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get("Idempotent-Replayed")).toBeNull();
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM card_orders WHERE customer_id = ?")
        .bind(customer)
        .first<number>("n"),
    ).toBe(3);
  });
});
