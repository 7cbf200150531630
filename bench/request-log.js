// The request log line every baseline Worker writes (bench/static, bench/raw-d1), as a production
// Worker does: one console.log a request of one JSON object with the keys, in the order, of the
// service's (src/http/request-context.ts), the request id taken from X-Request-Id as the service
// takes it. Under Miniflare 5 each line travels from workerd's stdout to the Node process as a
// structured log record, a cost per request the service pays; the baselines pay it too, so that the
// pairs compare the Workers' code (BENCHMARKS.md, "The request log line"). bench/run.mjs stops if the
// keys drift apart from the service's.
const SANE_REQUEST_ID = /^[A-Za-z0-9_.:@-]{1,128}$/;

/**
 * @param {Request} request
 * @param {string} route the Worker's route, as the service logs its route's pattern
 * @param {number} started Date.now() when the request came in
 * @param {number} status
 * @param {{ queries: number, rowsRead: number, rowsWritten: number }} [d1]
 */
export function logRequest(request, route, started, status, d1) {
  const sent = request.headers.get("X-Request-Id");
  console.log(
    JSON.stringify({
      request_id: sent && SANE_REQUEST_ID.test(sent) ? sent : crypto.randomUUID(),
      method: request.method,
      route,
      status,
      duration_ms: Date.now() - started,
      sub: null,
      replayed: undefined,
      d1_queries: d1?.queries ?? 0,
      d1_rows_read: d1?.rowsRead ?? 0,
      d1_rows_written: d1?.rowsWritten ?? 0,
    }),
  );
}
