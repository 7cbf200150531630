import type { Principal } from "./auth/principal";
import type { RequestDatabase } from "./db/client";

export interface Bindings {
  DB: D1Database;
  RATE_LIMITER: RateLimit;
  /** HS256 signing secret (a Worker secret; locally in `.dev.vars`). */
  JWT_SECRET?: string;
  /** When set, RS256/ES256 tokens signed by a key of this JWK set are accepted too. */
  JWT_JWKS_URL?: string;
  JWT_ISSUER?: string;
  JWT_AUDIENCE?: string;
  CREDITOR_NAME: string;
  /** Comma-separated origins allowed to call the API from a browser; empty: CORS off. */
  CORS_ALLOWED_ORIGINS?: string;
}

export interface Variables {
  requestId: string;
  principal?: Principal;
  db?: RequestDatabase;
  /** The validated request body (see `jsonBody`). */
  body?: unknown;
  /** The request body exactly as received (POST/PUT with a JSON body), for the idempotency hash. */
  rawBody?: string;
  idempotency?: import("./idempotency").IdempotencyContext;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
