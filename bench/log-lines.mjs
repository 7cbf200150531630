// The service's request log lines (src/http/request-context.ts) by the request id the bench sent; a
// lookup waits, as a line comes through workerd's stdout a little after its response.

/** Request ids the bench sends start with this; scripts/worker-host.mjs keeps only lines holding it. */
export const PROBE_PREFIX = "bench-probe-";

export class LogLines {
  #lines = new Map();
  #waiting = new Map();

  /** For startWorker's `onLine`. */
  take = (line) => {
    if (!line.includes(`"${PROBE_PREFIX}`)) return;
    let parsed;
    try {
      parsed = JSON.parse(line);
    } catch {
      return; // another line that happens to mention a probe id (an error report)
    }
    if (typeof parsed.request_id !== "string") return;
    this.#lines.set(parsed.request_id, parsed);
    this.#waiting.get(parsed.request_id)?.(parsed);
  };

  /** The log line of the request sent with X-Request-Id `requestId`. */
  get(requestId, timeoutMs = 10_000) {
    if (this.#lines.has(requestId)) return Promise.resolve(this.#lines.get(requestId));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(requestId);
        reject(
          new Error(`the service's request log line for ${requestId} did not arrive within ${timeoutMs / 1000} s`),
        );
      }, timeoutMs);
      this.#waiting.set(requestId, (line) => {
        clearTimeout(timer);
        this.#waiting.delete(requestId);
        resolve(line);
      });
    });
  }
}

/** What one request cost in D1, as the service logged it. */
export const d1Cost = (line) => ({
  queries: line.d1_queries,
  rowsRead: line.d1_rows_read,
  rowsWritten: line.d1_rows_written,
});
