import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetAccessToken } from "../src/events/google-access-token";
import { call, createCardOrder, addEntry, token, unique } from "./support/api";
import { outbound, serviceAccount, verifiedClaims } from "./support/outbound";
import { drain, queued, type Outcome } from "./support/queue";

// docs/api.md parts 11 and 12: when a card order is delivered, each voucher owner with an entry in it
// gets one push on each of their devices, through FCM HTTP v1 as a service account. Both Google
// endpoints are stood in for (GOOGLE_TOKEN_URL, FCM_API_URL), as in local development.

const TOKEN_URL = "https://oauth2.test/token";
const FCM_URL = "https://fcm.test";
const PROJECT = "voucher-project";

let account: Awaited<ReturnType<typeof serviceAccount>>;
const pushEnv = () => ({
  FCM_PROJECT_ID: PROJECT,
  FCM_SERVICE_ACCOUNT: account.json,
  GOOGLE_TOKEN_URL: TOKEN_URL,
  FCM_API_URL: FCM_URL,
});

/** Google as the tests want it: tokens for a verified assertion, FCM answering `fcm` per device token. */
function google(fcm: (deviceToken: string) => Response = () => Response.json({ name: "projects/p/messages/1" })) {
  return outbound(async (request, body) => {
    if (request.url === TOKEN_URL) {
      const form = new URLSearchParams(body);
      const claims = await verifiedClaims(form.get("assertion")!, account.publicKey);
      if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer" || !claims)
        return new Response("bad assertion", { status: 400 });
      return Response.json({ access_token: "ya29.test-token", expires_in: 3599, token_type: "Bearer" });
    }
    return fcm(JSON.parse(body).message.token);
  });
}

async function register(owner: string, device: string, value = unique("fcm-token")) {
  const response = await call("/voucher_owners/me/notification_tokens", {
    token: await token({ sub: owner }),
    method: "PUT",
    json: { value, device_identifier: device },
  });
  expect(response.status).toBe(204);
  return value;
}

/** An order with cards for Ada (two) and Alan, delivered; its events queued. */
async function deliveredOrder(owners: { ada: string; alan: string }) {
  const auth = await token();
  const order = await createCardOrder(auth);
  const ada1 = await addEntry(auth, order.id, {
    voucher_owner_id: owners.ada,
    card_holder_name: "Ada Lovelace",
    amount: "20.00",
  });
  const ada2 = await addEntry(auth, order.id, {
    voucher_owner_id: owners.ada,
    card_holder_name: "Ada L.",
    amount: "30.00",
  });
  const alan = await addEntry(auth, order.id, {
    voucher_owner_id: owners.alan,
    card_holder_name: "Alan Turing",
    amount: "25.00",
  });
  for (const action of ["submit", "start_production", "deliver"])
    expect((await call(`/card_orders/${order.id}/${action}`, { token: auth, method: "POST" })).status).toBe(200);
  return { order, entries: { ada: [ada1.id, ada2.id], alan: [alan.id] } };
}

/** The ids of the card_order.delivered events among what was drained. */
const deliveredEvents = (outcomes: Outcome[]) =>
  outcomes.flatMap(({ body }) =>
    body.kind === "event" && body.event.type === "card_order.delivered" ? [body.event.id] : [],
  );

beforeEach(async () => {
  account ??= await serviceAccount();
  forgetAccessToken();
  queued.take();
});
afterEach(() => vi.restoreAllMocks());

describe("push on delivery", () => {
  it("sends one message per device of each owner with cards in the order, naming only their holders", async () => {
    const owners = { ada: unique("ada"), alan: unique("alan") };
    const [adaPhone, adaTablet, alanPhone] = [
      await register(owners.ada, "phone"),
      await register(owners.ada, "tablet"),
      await register(owners.alan, "phone"),
    ];
    await register(unique("stranger"), "phone");
    const { order, entries } = await deliveredOrder(owners);
    const world = google();
    const outcomes = await drain(pushEnv());

    const pushes = outcomes.filter((o) => o.body.kind === "push");
    expect(pushes.map((o) => o.acked)).toStrictEqual([true, true, true]);
    const sent = world.requests.filter((r) => r.url.startsWith(FCM_URL));
    expect(
      sent.every(
        (r) =>
          r.url === `${FCM_URL}/v1/projects/${PROJECT}/messages:send` &&
          r.method === "POST" &&
          r.headers.authorization === "Bearer ya29.test-token",
      ),
    ).toBe(true);
    const messages = sent.map((r) => JSON.parse(r.body).message).toSorted((a, b) => (a.token < b.token ? -1 : 1));
    const [eventId] = deliveredEvents(outcomes);
    // A repeat of the push replaces the notification rather than adding one (see the next test).
    const collapse = {
      android: { collapse_key: eventId, notification: { tag: eventId } },
      apns: { headers: { "apns-collapse-id": eventId } },
    };
    const expected = [
      {
        token: adaPhone,
        notification: {
          title: "Your voucher card is on its way",
          body: "The cards for Ada Lovelace and Ada L. have been delivered.",
        },
        data: { type: "card_order.delivered", card_order_id: order.id, entry_ids: entries.ada.join(",") },
        ...collapse,
      },
      {
        token: adaTablet,
        notification: {
          title: "Your voucher card is on its way",
          body: "The cards for Ada Lovelace and Ada L. have been delivered.",
        },
        data: { type: "card_order.delivered", card_order_id: order.id, entry_ids: entries.ada.join(",") },
        ...collapse,
      },
      {
        token: alanPhone,
        notification: {
          title: "Your voucher card is on its way",
          body: "The card for Alan Turing has been delivered.",
        },
        data: { type: "card_order.delivered", card_order_id: order.id, entry_ids: entries.alan.join(",") },
        ...collapse,
      },
    ].toSorted((a, b) => (a.token < b.token ? -1 : 1));
    expect(messages).toStrictEqual(expected);
  });

  it("resends a push (a retry, or its event fanned out twice) with the same collapse key, not another's", async () => {
    const owner = unique("ada");
    await register(owner, "phone");
    await deliveredOrder({ ada: owner, alan: unique("alan") });
    const world = google();
    const outcomes = await drain(pushEnv());
    const [first] = outcomes.filter((o) => o.body.kind === "push");
    queued.messages.push(first!.body);
    await drain(pushEnv());
    await deliveredOrder({ ada: owner, alan: unique("alan") });
    const later = await drain(pushEnv());

    const collapse = world.requests
      .filter((r) => r.url.startsWith(FCM_URL))
      .map((r) => JSON.parse(r.body).message)
      .map(({ android, apns }) => ({ android, apns }));
    const keyed = (id: string) => ({
      android: { collapse_key: id, notification: { tag: id } },
      apns: { headers: { "apns-collapse-id": id } },
    });
    expect(collapse).toStrictEqual([
      keyed(deliveredEvents(outcomes)[0]!),
      keyed(deliveredEvents(outcomes)[0]!),
      keyed(deliveredEvents(later)[0]!),
    ]);
    expect(deliveredEvents(later)[0]).not.toBe(deliveredEvents(outcomes)[0]);
  });

  it("gets the access token once by the JWT-bearer grant, signed RS256, and keeps it until it expires", async () => {
    const owners = { ada: unique("ada"), alan: unique("alan") };
    await register(owners.ada, "phone");
    await register(owners.alan, "phone");
    await deliveredOrder(owners);
    const world = google();
    await drain(pushEnv());
    await deliveredOrder(owners);
    await drain(pushEnv());

    const tokenRequests = world.requests.filter((r) => r.url === TOKEN_URL);
    expect(tokenRequests).toHaveLength(1);
    expect(world.requests.filter((r) => r.url.startsWith(FCM_URL))).toHaveLength(4);
    const claims = await verifiedClaims(
      new URLSearchParams(tokenRequests[0]!.body).get("assertion")!,
      account.publicKey,
    );
    const now = Math.floor(Date.now() / 1000);
    expect(claims).toStrictEqual({
      iss: "push@project.iam.gserviceaccount.com",
      scope: "https://www.googleapis.com/auth/firebase.messaging",
      aud: TOKEN_URL,
      iat: expect.any(Number),
      exp: expect.any(Number),
    });
    expect(Math.abs((claims!.iat as number) - now)).toBeLessThan(60);
    expect((claims!.exp as number) - (claims!.iat as number)).toBe(3600);
  });

  it("deletes a token FCM answers as unregistered, and retries one FCM could not take now", async () => {
    const owners = { ada: unique("ada"), alan: unique("alan") };
    const gone = await register(owners.ada, "old-phone");
    const busy = await register(owners.alan, "phone");
    await deliveredOrder(owners);
    google((device) =>
      device === gone
        ? Response.json(
            {
              error: {
                code: 404,
                message: "Requested entity was not found.",
                status: "NOT_FOUND",
                details: [
                  { "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: "UNREGISTERED" },
                ],
              },
            },
            { status: 404 },
          )
        : new Response("busy", { status: 503 }),
    );
    const pushes = (await drain(pushEnv())).filter((o) => o.body.kind === "push");
    expect(pushes.map((o) => [(o.body as { token: string }).token, o.acked, o.retried]).toSorted()).toStrictEqual(
      [
        [gone, true, undefined],
        [busy, false, { delaySeconds: 0 }],
      ].toSorted(),
    );
    const { results } = await env.DB.prepare("SELECT value FROM notification_tokens WHERE owner_id IN (?, ?)")
      .bind(owners.ada, owners.alan)
      .all();
    expect(results).toStrictEqual([{ value: busy }]);
  });

  it("without FCM_PROJECT_ID, push is off: logged once per delivery batch, not an error, nothing sent", async () => {
    const owners = { ada: unique("ada"), alan: unique("alan") };
    await register(owners.ada, "phone");
    await deliveredOrder(owners);
    const world = google();
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    const outcomes = await drain({ FCM_PROJECT_ID: undefined });
    expect(outcomes.every((o) => o.acked)).toBe(true);
    expect(outcomes.some((o) => o.body.kind === "push")).toBe(false);
    expect(lines.map((line) => JSON.parse(line)).filter((line) => line.job === "push")).toStrictEqual([
      { job: "push", status: "off", reason: "FCM_PROJECT_ID is not set", event_ids: [expect.any(String)] },
    ]);
    expect(world.requests).toStrictEqual([]);
  });

  it.each([
    ["no service account", undefined],
    ["a service account that is not JSON", "{not json"],
    ["a service account without a key", JSON.stringify({ client_email: "x@y" })],
  ])("with FCM_PROJECT_ID but %s, push is off and logged", async (_, json) => {
    const owners = { ada: unique("ada"), alan: unique("alan") };
    await register(owners.ada, "phone");
    await deliveredOrder(owners);
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    const outcomes = await drain({ ...pushEnv(), FCM_SERVICE_ACCOUNT: json });
    expect(outcomes.some((o) => o.body.kind === "push")).toBe(false);
    expect(lines.some((line) => line.includes('"status":"off"') && line.includes("FCM_SERVICE_ACCOUNT"))).toBe(true);
  });
});
