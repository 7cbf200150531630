import type { Principal } from "./auth/principal";
import type { RequestDatabase } from "./db/client";
import type { QueueMessage } from "./events/messages";
import type { Renderer } from "./documents/worker";
import type { BillingVariables } from "./domain/billing";
import type { SellerVariables } from "./domain/seller";
import type { StatementMessage } from "./payments/messages";
import type { DeliveryMessage } from "./deliveries/messages";
import type { DunningMessage } from "./jobs/dunning-messages";

export interface Bindings extends SellerVariables, BillingVariables {
  DB: D1Database;
  RATE_LIMITER: RateLimit;
  /** The events queue: the API Worker produces, the jobs Worker (wrangler.jobs.toml) consumes. */
  EVENTS: Queue<QueueMessage>;
  /** The slow lane (wrangler.jobs.toml): deliveries to webhook endpoints that answer slowly or not at all. */
  SLOW_DELIVERIES: Queue<QueueMessage>;
  /** Bank statements to read and match (docs/api.md part 15): the jobs Worker's; the API's cron resends. */
  STATEMENTS: Queue<StatementMessage>;
  /** Deliveries to send (docs/api.md part 17): the jobs Worker's, produced and consumed there. */
  DELIVERIES: Queue<DeliveryMessage>;
  /** The dunning run's scans and chunks (docs/api.md part 18): the jobs Worker's, produced and consumed there. */
  DUNNING: Queue<DunningMessage>;
  /** Days to level 1, 2, 3 and the end (default "7,14,14,14"), or "off" (docs/api.md part 18). */
  DUNNING_DAYS?: string;
  /** Cloudflare Email Service (wrangler.jobs.toml [[send_email]]): how documents reach the buyer. */
  EMAIL: SendEmail;
  /** The sender of every delivery (docs/api.md part 17): an address on the seller's sending domain. */
  DELIVERY_FROM?: string;
  /** Seconds before a delivery's first retry (default 30); each later wait is 4 times longer. */
  DELIVERY_RETRY_BASE_SECONDS?: string;
  /** Bank statement files as received (docs/api.md part 15). */
  STATEMENT_FILES: R2Bucket;
  /** The jobs Worker, which answers the requests the API Worker passes on (http/pass-on.ts). */
  JOBS: Fetcher;
  /** E-invoices as first rendered (docs/api.md part 13): served from here for ever after. */
  DOCUMENTS: R2Bucket;
  /** The documents Worker (wrangler.documents.toml), which renders them. */
  RENDERER: Service<Renderer>;
  /** The static assets (wrangler.toml [assets]): /docs's files and the OpenAPI document. */
  ASSETS: Fetcher;
  /** HS256 signing secret (a Worker secret; locally in `.dev.vars`). */
  JWT_SECRET?: string;
  /** When set, RS256/ES256 tokens signed by a key of this JWK set are accepted too. */
  JWT_JWKS_URL?: string;
  JWT_ISSUER?: string;
  JWT_AUDIENCE?: string;
  /** The seller of every invoice (docs/api.md part 13; CREDITOR_* in wrangler.toml). */
  CREDITOR_NAME: string;
  /** The Worker's own secret: keys derived from it seal stored secrets and sign list cursors. */
  APP_SECRET?: string;
  /** Comma-separated secrets APP_SECRET replaced: what they sealed or signed still opens (rotation). */
  APP_SECRETS_PREVIOUS?: string;
  /** "true": webhook endpoints on loopback and private hosts, also over http (local development). */
  ALLOW_LOCAL_WEBHOOKS?: string;
  /** Seconds before a failed delivery's first retry (default 30); each later wait is 4 times longer. */
  WEBHOOK_RETRY_BASE_SECONDS?: string;
  /** Push through FCM HTTP v1 (docs/api.md part 11): off without a project. */
  FCM_PROJECT_ID?: string;
  /** The service account's JSON (a secret). */
  FCM_SERVICE_ACCOUNT?: string;
  FCM_API_URL?: string;
  GOOGLE_TOKEN_URL?: string;
  /** Comma-separated origins allowed to call the API from a browser; empty: CORS off. */
  CORS_ALLOWED_ORIGINS?: string;
}

interface Variables {
  requestId: string;
  principal?: Principal;
  db?: RequestDatabase;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
