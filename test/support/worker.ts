import api from "../../src/index";
import jobs from "../../src/jobs/index";

/**
 * The API Worker and the jobs Worker as one, the test pool's main module (vitest.config.ts): requests
 * and Cron Triggers go to the API's handlers, the local queues deliver to the jobs Worker's consumer.
 */
export default { ...api, ...jobs };
