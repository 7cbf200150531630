// One request as a client sends it (token, JSON or XML body, request id), for the probes and scenarios.
import { performance } from "node:perf_hooks";
import { sign } from "hono/jwt";

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

/** An HS256 access token of `claims`, signed with `secret`, valid for `seconds`. */
export const tokenOf = (secret, claims, seconds = 3600) =>
  sign({ ...claims, exp: Math.floor(Date.now() / 1000) + seconds }, secret, "HS256");
