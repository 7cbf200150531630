// Run by bench/pool-proxy/vitest.config.ts (`npm run bench:pool-proxy`); prints milliseconds per 100
// calls through the pool's exports.default.fetch and through the Worker's own fetch.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { expect, it } from "vitest";
import worker from "./worker";

const CALLS = 500;
const STEP = 100;
// Flat is about 1x; scheduling noise on a shared machine stays well under this.
const MAX_GROWTH = 3;

async function timed(name: string, call: () => Promise<Response>): Promise<number[]> {
  const perStep: number[] = [];
  let started = performance.now();
  for (let i = 1; i <= CALLS; i++) {
    expect((await call()).status).toBe(200);
    if (i % STEP === 0) {
      perStep.push(Math.round(performance.now() - started));
      started = performance.now();
    }
  }
  console.log(`${name}: ms per ${STEP} calls, in order: ${perStep.join(" ")}`);
  return perStep;
}

it(`${CALLS} calls: the pool's exports.default.fetch against the Worker's own fetch`, {
  timeout: 600_000,
}, async () => {
  // With the execution context send() gives every call, so that both sides do the same work.
  const own = await timed("worker.fetch", async () => {
    const ctx = createExecutionContext();
    const response = await worker.fetch();
    await waitOnExecutionContext(ctx);
    return response;
  });
  const pooled = await timed("exports.default.fetch", () => exports.default.fetch("http://example.com/"));
  const growth = pooled.at(-1)! / pooled[0]!;
  console.log(
    `last ${STEP} against first ${STEP}: exports.default.fetch ${growth.toFixed(1)}x, ` +
      `worker.fetch ${(own.at(-1)! / own[0]!).toFixed(1)}x`,
  );
  // The regression check: with the pool package's Proxy chain the last 100 calls took 21x the first.
  expect(growth, "exports.default.fetch slows down with every call again").toBeLessThan(MAX_GROWTH);
});
