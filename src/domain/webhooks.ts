// docs/api.md parts 11 and 12: where a customer's webhook endpoints may point, and how many it may have.
import { isPublicWebhookHost } from "./webhook-host";

export const MAX_WEBHOOK_ENDPOINTS = 10;

/**
 * Why `text` cannot be a webhook endpoint, or undefined when it can: an absolute https URL without
 * credentials; a host that is not globally reachable (webhook-host.ts), over http too, only while
 * local webhooks are allowed.
 */
export function webhookUrlProblem(text: string, allowLocal: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an https URL";
  if (url.username || url.password) return "must not carry credentials";
  if (!isPublicWebhookHost(url.hostname)) {
    return allowLocal
      ? undefined
      : "must point at a publicly reachable host, not a loopback, private or reserved address " +
          "(ALLOW_LOCAL_WEBHOOKS is off)";
  }
  return url.protocol === "https:" ? undefined : "must be an https URL";
}
