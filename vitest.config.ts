import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig } from "vitest/config";
import { unstable_readConfig } from "wrangler";
import { buildAssets } from "./scripts/build-assets.mjs";
import { buildCompanionWorker } from "./scripts/build-companion-worker.mjs";

// The pool reads wrangler.toml but runs no [build] command: the generated assets (the OpenAPI
// document, Scalar's bundle), fresh, before the tests reach them through env.ASSETS.
await buildAssets();
// The Workers the service bindings name: the documents Worker (the jobs Worker's RENDERER), from its
// bundle, and the jobs Worker (the API Worker's JOBS), whose fetch and queue consumer the tests reach
// in the main module instead (test/support/worker.ts), where they share its D1 and can drive it.
const companions = await Promise.all(["wrangler.documents.toml", "wrangler.jobs.toml"].map(buildCompanionWorker));
// The jobs Worker's own bindings (wrangler.jobs.toml), given to the test pool's main module, which is
// the API Worker and the jobs Worker as one: its queues, consumed there, its R2 buckets and RENDERER.
interface JobsConfig {
  queues: Queues;
  r2_buckets: { binding: string; bucket_name: string }[];
  services: { binding: string; service: string; entrypoint?: string }[];
}
interface Queues {
  producers?: { binding: string; queue: string }[];
  consumers?: {
    queue: string;
    max_batch_size?: number;
    max_batch_timeout?: number;
    max_retries?: number;
    retry_delay?: number;
    dead_letter_queue?: string;
  }[];
}
const jobs = unstable_readConfig({ config: "./wrangler.jobs.toml" }) as unknown as JobsConfig;
// The API Worker's rate limit, for test/rate-limit.test.ts, which counts it on a clock of its own.
const [rateLimit] = unstable_readConfig({ config: "./wrangler.toml" }).ratelimits;
const { queues } = jobs;

// workerd's own log lines reach this process through the pool. Two kinds are expected, not
// failures, and hidden: the runner's WebSocket closing as each test file ends, and the warning about
// a non-ASCII request header value, which tests send on purpose to see it refused (the tests assert
// the Worker's answers themselves). Everything else passes through.
const EXPECTED_NOISE = [
  /^exception = workerd\/api\/web-socket\.c\+\+:\d+: disconnected: WebSocket peer disconnected\n$/,
  /^A header value for "(X-Request-Id|x-d1-bookmark|Idempotency-Key)" contains non-ASCII characters: /,
];
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream);
  stream.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
    EXPECTED_NOISE.some((line) => line.test(String(chunk))) || write(chunk, ...rest)) as typeof stream.write;
}

export default defineConfig(async () => ({
  plugins: [
    cloudflareTest({
      main: "./test/support/worker.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        queueProducers: Object.fromEntries((queues.producers ?? []).map(({ binding, queue }) => [binding, queue])),
        // The deliveries, delivery-events (docs/api.md part 17) and dunning (part 18) queues have no consumer here: their
        // tests run it on what they queued (test/support/deliveries.ts), so no e-mail goes out behind a test.
        queueConsumers: Object.fromEntries(
          (queues.consumers ?? [])
            .filter((c) => !/^voucher-billing-(invoice-deliveries|email-events|dunning)/.test(c.queue))
            .map((c) => [
              c.queue,
              {
                maxBatchSize: c.max_batch_size,
                maxBatchTimeout: c.max_batch_timeout,
                maxRetries: c.max_retries,
                retryDelay: c.retry_delay,
                deadLetterQueue: c.dead_letter_queue,
              },
            ]),
        ),
        // The jobs Worker's EMAIL (wrangler.jobs.toml [[send_email]]), Miniflare's local one.
        email: { send_email: [{ name: "EMAIL" }] },
        r2Buckets: Object.fromEntries(jobs.r2_buckets.map(({ binding, bucket_name }) => [binding, bucket_name])),
        serviceBindings: Object.fromEntries(
          jobs.services.map(({ binding, service, entrypoint }) => [binding, { name: service, entrypoint }]),
        ),
        workers: companions.map(({ name, scriptPath, compatibilityDate }) => ({
          name,
          modules: true,
          scriptPath,
          compatibilityDate,
        })),
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations("./drizzle"),
          JWT_SECRET: "test-secret",
          APP_SECRET: "test-app-secret",
          // A failed delivery asks to be retried at once (test/webhooks.test.ts checks the deployed schedule).
          WEBHOOK_RETRY_BASE_SECONDS: "0",
          RATE_LIMIT_SIMPLE: rateLimit!.simple,
        },
      },
    }),
  ],
  test: {
    // One workerd for all files, one after another (vitest starts a new one per file otherwise, about 1 s
    // each, and evaluates the service's modules again in each); test/support/fresh-storage.ts gives each
    // file the empty D1, R2 and queues a new one would have, then test/apply-migrations.ts migrates.
    isolate: false,
    setupFiles: ["./test/support/fresh-storage.ts", "./test/apply-migrations.ts"],
    // Node tests, not for workerd: against a real `wrangler dev` (npm run test:dev), and the e-invoice
    // and ISO 20022 validator runs (npm run test:einvoice, test:payments).
    exclude: [...configDefaults.exclude, "test/build/**", "test/dev-server/**", "test/einvoice/**", "test/payments/**"],
    // Each request logs a line; show them only for failing tests.
    silent: "passed-only" as const,
  },
}));
