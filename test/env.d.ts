import type { D1Migration } from "cloudflare:test";
import type { Bindings } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: D1Migration[];
      RATE_LIMIT_SIMPLE: { limit: number; period: number };
    }
    interface GlobalProps {
      mainModule: typeof import("./support/worker");
    }
  }
}
