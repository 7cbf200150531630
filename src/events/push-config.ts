import type { Bindings } from "../env";

// docs/api.md part 11: push goes through Firebase Cloud Messaging's HTTP v1 API, as the service account
// in FCM_SERVICE_ACCOUNT. FCM_API_URL and GOOGLE_TOKEN_URL may point at a local stand-in.
const FCM_API = "https://fcm.googleapis.com";
const GOOGLE_TOKEN = "https://oauth2.googleapis.com/token";

export interface PushConfig {
  projectId: string;
  clientEmail: string;
  privateKey: string;
  apiUrl: string;
  /** The token URL in use: also the JWT assertion's `aud`. */
  tokenUrl: string;
}

const string = (value: unknown): value is string => typeof value === "string" && value.length > 0;

/** The push configuration, or why push is off (no project, or no usable service account). */
export function pushConfig(env: Bindings): PushConfig | { off: string } {
  if (!env.FCM_PROJECT_ID) return { off: "FCM_PROJECT_ID is not set" };
  let account: Record<string, unknown>;
  try {
    account = JSON.parse(env.FCM_SERVICE_ACCOUNT ?? "");
  } catch {
    return { off: "FCM_SERVICE_ACCOUNT is not a service account's JSON" };
  }
  if (!string(account?.client_email) || !string(account.private_key))
    return { off: "FCM_SERVICE_ACCOUNT has no client_email or private_key" };
  return {
    projectId: env.FCM_PROJECT_ID,
    clientEmail: account.client_email,
    privateKey: account.private_key,
    apiUrl: env.FCM_API_URL || FCM_API,
    tokenUrl: env.GOOGLE_TOKEN_URL || (string(account.token_uri) ? account.token_uri : GOOGLE_TOKEN),
  };
}
