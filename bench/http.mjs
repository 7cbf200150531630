// One request to a Worker as a client sends it, for the bench's probes and scenarios (autocannon
// does the load itself): a bearer token, a JSON body or a statement file's XML, a request id to find
// its log line by.
import { performance } from "node:perf_hooks";

/** `ms`: from sending to the last byte of the body. */
export async function call(url, { method, token, json, xml, headers = {}, requestId } = {}) {
  const sent = { ...headers };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (json !== undefined) sent["Content-Type"] = "application/json";
  if (xml !== undefined) sent["Content-Type"] = "application/xml";
  if (requestId) sent["X-Request-Id"] = requestId;
  const body = xml ?? (json === undefined ? undefined : JSON.stringify(json));
  const started = performance.now();
  const response = await fetch(url, { method: method ?? (body === undefined ? "GET" : "POST"), headers: sent, body });
  const text = await response.text();
  const ms = performance.now() - started;
  // JSON answers are parsed; a document (an e-invoice's XML) is kept as its text.
  const isJson = response.headers.get("Content-Type")?.startsWith("application/json");
  return {
    status: response.status,
    headers: response.headers,
    body: text && isJson ? JSON.parse(text) : text || undefined,
    ms,
  };
}

/** `call`, failing unless the answer has `status`. */
export async function expectStatus(status, url, options) {
  const answer = await call(url, options);
  if (answer.status !== status)
    throw new Error(
      `${options?.method ?? (options?.json === undefined ? "GET" : "POST")} ${url}: ` +
        `${answer.status}, not ${status}: ${JSON.stringify(answer.body)}`,
    );
  return answer;
}
