import { createApp } from "./app";
import { deleteExpiredIdempotencyKeys } from "./db/idempotency-keys";
import type { Bindings } from "./env";

const app = createApp();

export default {
  fetch: app.fetch,
  // Cron Trigger (wrangler.toml): stored idempotent responses live 24 hours.
  async scheduled(_controller, env, _ctx) {
    // Awaited, so that a failed run shows as failed in the Cron Trigger's history.
    const deleted = await deleteExpiredIdempotencyKeys(env.DB);
    console.log(JSON.stringify({ job: "expire_idempotency_keys", deleted }));
  },
} satisfies ExportedHandler<Bindings>;
