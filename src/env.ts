import type { Principal } from "./auth/principal";
import type { RequestDatabase } from "./db/client";
import type { IdempotencyClaim } from "./db/idempotency-keys";

export interface Bindings {
  DB: D1Database;
  RATE_LIMITER: RateLimit;
  /** The static assets (wrangler.toml [assets]): /docs's files and the OpenAPI document. */
  ASSETS: Fetcher;
  /** HS256 signing secret (a Worker secret; locally in `.dev.vars`). */
  JWT_SECRET?: string;
  /** When set, RS256/ES256 tokens signed by a key of this JWK set are accepted too. */
  JWT_JWKS_URL?: string;
  JWT_ISSUER?: string;
  JWT_AUDIENCE?: string;
  CREDITOR_NAME: string;
  /** Fees and VAT rates of the invoices (CONTRACT part 10); the contract's defaults when unset. */
  VOUCHER_VAT_PERCENT?: string;
  SERVICE_VAT_PERCENT?: string;
  CARD_PRODUCTION_FEE?: string;
  SHIPPING_FEE?: string;
  /** Comma-separated origins allowed to call the API from a browser; empty: CORS off. */
  CORS_ALLOWED_ORIGINS?: string;
}

interface Variables {
  requestId: string;
  principal?: Principal;
  db?: RequestDatabase;
  /** The request's Idempotency-Key, when it sent one (see http/idempotency-key.ts). */
  idempotency?: IdempotencyClaim;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
