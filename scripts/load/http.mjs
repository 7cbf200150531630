// The load's HTTP client, every attempt timed; under --faults a 503 is retried as docs/api.md part 3 says.

const REQUEST_TIMEOUT_MS = 30_000;
// 5 % of D1 calls fail: ten 503s in a row for one request would take a fault rate near 50 %.
const MAX_ATTEMPTS = 10;

function parseJson(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** Rejects on abort: an aborted fetch can leave `response.text()` pending forever. */
function abortion(signal) {
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
}

async function exchange(url, init) {
  const response = await fetch(url, init);
  return { response, text: await response.text() };
}

export const statusLabel = ({ status, code }) =>
  status === 0 ? `transport error (${code})` : code ? `${status} ${code}` : String(status);

/**
 * `send(principal, method, path, { json, xml, key }, op)` never throws (status 0: transport error); with
 * `op` each attempt counts in `stats.samples`. A 5xx other than an allowed 503 counts in `serverErrors`.
 */
export function createClient(baseUrl, stopSignal, { faults }) {
  const stats = {
    samples: [], // { op, status, code, ms } of every attempt of a load request
    serverErrors: new Map(), // "METHOD path: status" -> count
    unavailable: 0, // 503s with Retry-After (allowed under --faults)
    retried: new Map(), // the final answer of each request that was retried -> count
  };

  // `xml`: a document sent as the body itself (a camt.053 statement), instead of `json`.
  async function attempt(principal, method, path, { json, xml, key } = {}) {
    const headers = principal ? { Authorization: `Bearer ${principal.token}` } : {};
    if (json !== undefined) headers["Content-Type"] = "application/json";
    if (xml !== undefined) headers["Content-Type"] = "application/xml";
    if (key) headers["Idempotency-Key"] = key;
    const signal = AbortSignal.any([stopSignal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
    const started = performance.now();
    try {
      const init = { method, headers, body: xml ?? (json === undefined ? undefined : JSON.stringify(json)), signal };
      const { response, text } = await Promise.race([exchange(new URL(path, baseUrl), init), abortion(signal)]);
      const body = parseJson(text);
      return {
        status: response.status,
        code: body?.errors?.[0]?.code,
        body,
        text,
        replayed: response.headers.get("Idempotent-Replayed") === "true",
        retryAfter: response.headers.get("Retry-After"),
        ms: performance.now() - started,
      };
    } catch (error) {
      return { status: 0, code: error.name, ms: performance.now() - started };
    }
  }

  async function send(principal, method, path, options = {}, op) {
    for (let attempts = 1; ; attempts++) {
      const result = await attempt(principal, method, path, options);
      if (op) stats.samples.push({ op, status: result.status, code: result.code, ms: result.ms });
      // docs/api.md part 3: a failed database is a 503 `unavailable` with Retry-After, and nothing else.
      const unavailable =
        result.status === 503 && result.code === "unavailable" && /^\d+$/.test(result.retryAfter ?? "");
      if (unavailable && faults) stats.unavailable++;
      else if (result.status >= 500) {
        const label =
          `${method} ${op ?? path}: ${statusLabel(result)}` +
          `${result.status === 503 && !unavailable ? " without Retry-After" : ""}`;
        stats.serverErrors.set(label, (stats.serverErrors.get(label) ?? 0) + 1);
      }
      if (!faults || !unavailable || attempts === MAX_ATTEMPTS || stopSignal.aborted) {
        if (attempts > 1) {
          const label = `${statusLabel(result)}${result.replayed ? " (replayed)" : ""}`;
          stats.retried.set(label, (stats.retried.get(label) ?? 0) + 1);
        }
        return { ...result, attempts };
      }
      await new Promise((resolve) => setTimeout(resolve, Number(result.retryAfter) * 1000));
    }
  }

  return { send, stats };
}
