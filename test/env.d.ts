import type { D1Migration } from "cloudflare:test";
import type { Bindings } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: D1Migration[];
      CONTRACT_FIELDS: Record<string, string[] | undefined>;
    }
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
  }
}
