// `npm run db:migrate:local`: applies the migrations the local database has not had yet, without
// prompts, telemetry or a login (scripts/wrangler.mjs). `npm run db:reset` starts from none instead.
import { wranglerSync } from "./wrangler.mjs";

wranglerSync(["d1", "migrations", "apply", "DB", "--local"]);
