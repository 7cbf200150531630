// The jobs Worker for `npm run bench:reconcile -- --profile` only (scripts/local-worker.mjs,
// `companionMains`; wrangler.jobs.toml's `main` stays src/jobs/index.ts): the same Worker, its D1
// binding counted (bench/wrapped-d1/wrap.ts; every call, a batch however many statements it holds, is
// one round trip) and, with the var D1_DELAY_MS, each call delayed by that many milliseconds (a D1
// farther away than the local one). With BENCH_SKIP_EVENTS=1 the events queues' messages are
// acknowledged unread: what the statement costs without the events consumer beside it.
// Each run of the statements queue's consumer logs one line, `{"bench_reconcile_run": ...}`: the
// transactions it handled, its D1 round trips and events queue sends, its wall time, and how long it
// took from its start to its first transaction's second D1 call (reading the file from R2, parsing it,
// the dedupe keys, one round trip). workerd's clock moves on I/O only, which every transaction does.
import type { Bindings } from "../../src/env";
import type { QueueMessage } from "../../src/events/messages";
import jobs from "../../src/jobs/index";
import type { StatementMessage } from "../../src/payments/messages";
import { wrapD1 } from "../wrapped-d1/wrap";

interface ProfiledBindings extends Bindings {
  D1_DELAY_MS?: string;
  BENCH_SKIP_EVENTS?: string;
}

type Message = QueueMessage | StatementMessage;

/** Where the statement stands (read on the binding itself: not counted, not delayed). */
async function handled(env: Bindings, statementId: string): Promise<number | null> {
  const row = await env.DB.prepare("SELECT handled FROM bank_statements WHERE id = ?")
    .bind(statementId)
    .first<{ handled: number }>();
  return row?.handled ?? null;
}

/**
 * Local D1's own cost, once per isolate before the first run: N calls of each kind one after the
 * other on the binding itself, the wall time of each kind divided by N (each call is I/O, so workerd's
 * clock sees it): a call that does nothing, the dedupe lookup a transaction starts with (a miss on the
 * unique index), and the lookup of one named invoice.
 */
let calibrated = false;
async function calibrate(env: Bindings) {
  if (calibrated) return null;
  calibrated = true;
  const N = 300;
  const timed = async (make: (i: number) => D1PreparedStatement) => {
    const started = Date.now();
    for (let i = 0; i < N; i++) await make(i).all();
    return Math.round(((Date.now() - started) / N) * 100) / 100;
  };
  return {
    calls: N,
    select_1_ms: await timed(() => env.DB.prepare("SELECT 1")),
    dedupe_miss_ms: await timed((i) =>
      env.DB.prepare("SELECT id FROM bank_transactions WHERE dedupe_key = ?").bind(`calibration-${i}`),
    ),
    invoice_by_number_ms: await timed((i) =>
      env.DB.prepare("SELECT * FROM invoices WHERE number IN (?)").bind(`INV-2026-${String(1 + i).padStart(6, "0")}`),
    ),
  };
}

export default {
  fetch: jobs.fetch,
  async queue(batch, env, ctx) {
    if (!batch.queue.startsWith("voucher-billing-statements")) {
      if (env.BENCH_SKIP_EVENTS === "1") return batch.ackAll();
      return jobs.queue(batch, env, ctx);
    }
    const statementId = (batch.messages[0]?.body as StatementMessage | undefined)?.statementId ?? "";
    // The D1 calls counted, and when the first three began.
    const starts: number[] = [];
    const counter = new Proxy(
      { count: 0 },
      {
        set(target, key, value) {
          if (key === "count" && starts.length < 3) starts.push(Date.now());
          return Reflect.set(target, key, value);
        },
      },
    );
    let sends = 0;
    const events: Queue<QueueMessage> = {
      send: (body, options) => ((sends += 1), env.EVENTS.send(body, options)),
      sendBatch: (messages, options) => ((sends += 1), env.EVENTS.sendBatch(messages, options)),
      metrics: () => env.EVENTS.metrics(),
    };
    const delayMs = Number(env.D1_DELAY_MS ?? "0");
    const wrapped: Bindings = { ...env, DB: wrapD1(env.DB, { delayMs, faultRate: 0 }, counter), EVENTS: events };
    const calibration = await calibrate(env);
    if (calibration) console.log(JSON.stringify({ bench_reconcile_calibration: calibration }));
    const before = await handled(env, statementId);
    const started = Date.now();
    await jobs.queue(batch, wrapped, ctx);
    const ms = Date.now() - started;
    const after = await handled(env, statementId);
    console.log(
      JSON.stringify({
        bench_reconcile_run: {
          statement: statementId,
          before,
          after,
          d1_calls: counter.count,
          event_sends: sends,
          ms,
          // Call 1 reads the statement; calls 2 and 3 are the first transaction's.
          first_transaction_ms: starts.length === 3 ? starts[2]! - started : null,
        },
      }),
    );
  },
} satisfies ExportedHandler<ProfiledBindings, Message>;
