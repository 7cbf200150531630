import { createApp } from "./app";
import { deleteExpiredIdempotencyKeys } from "./db/idempotency-keys";
import type { Bindings } from "./env";

const app = createApp();

export default {
  fetch: app.fetch,
  // Cron Trigger (wrangler.toml): stored idempotent responses live 24 hours.
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(deleteExpiredIdempotencyKeys(env.DB).then((deleted) => console.log(JSON.stringify({ job: "expire_idempotency_keys", deleted }))));
  },
} satisfies ExportedHandler<Bindings>;
