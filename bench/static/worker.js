const BODY = JSON.stringify({ ok: true });

export default {
  fetch() {
    return new Response(BODY, { headers: { "Content-Type": "application/json; charset=utf-8" } });
  },
};
