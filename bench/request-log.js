// The service's request log line (keys and order of src/http/request-context.ts), written by every
// baseline Worker so that the pairs compare the Workers' code (BENCHMARKS.md, "The request log line").
const SANE_REQUEST_ID = /^[A-Za-z0-9_.:@-]{1,128}$/;

/** `route`: as the service logs its route's pattern; `started`: Date.now() at arrival; `d1`: its cost. */
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
