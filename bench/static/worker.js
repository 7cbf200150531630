import { logRequest } from "../request-log.js";

const BODY = JSON.stringify({ ok: true });

export default {
  fetch(request) {
    const started = Date.now();
    const response = new Response(BODY, { headers: { "Content-Type": "application/json; charset=utf-8" } });
    // The request log line, as the service writes one for every request (bench/request-log.js).
    logRequest(request, "/", started, response.status);
    return response;
  },
};
