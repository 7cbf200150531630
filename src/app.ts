import type { Endpoint } from "./http/route";
import { apiEndpoints } from "./routes/api";
import { jobsEndpoints } from "./routes/jobs";

/**
 * The route table: every endpoint of the service, the API Worker's (src/routes/api.ts) and those it
 * passes on to the jobs Worker (src/routes/jobs.ts, http/pass-on.ts). The OpenAPI document and the
 * tests that must cover every route read it; each Worker mounts its own part (http/app.ts).
 */
export const endpoints: readonly Endpoint[] = [...apiEndpoints, ...jobsEndpoints];
