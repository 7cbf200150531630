// The least Worker there is, for the reproduction in calls.ts.
export default {
  fetch: () => new Response("ok"),
} satisfies ExportedHandler;
