// CONTRACT parts 11 and 12: where a customer's webhook endpoints may point, and how many it may have.
export const MAX_WEBHOOK_ENDPOINTS = 10;
export const MAX_WEBHOOK_URL_LENGTH = 2048;

const privateIPv4 = (host: string): boolean => {
  const octets = host.split(".").map(Number);
  if (octets.length !== 4 || octets.some((n) => !Number.isInteger(n) || n < 0 || n > 255)) return false;
  const [a, b] = octets as [number, number];
  return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
};

/**
 * Loopback and private hosts (localhost, 127/8, ::1, 10/8, 172.16/12, 192.168/16, 169.254/16, and
 * their IPv6 kin: unique-local, link-local, IPv4-mapped). `hostname` as the URL parser gives it, which
 * has already turned every spelling of an IPv4 address (2130706433, 0x7f.1) into dotted decimal.
 */
function isLocalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (privateIPv4(host)) return true;
  if (!host.startsWith("[")) return false;
  const v6 = host.slice(1, -1);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6)?.[1];
  return v6 === "::1" || v6 === "::" || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) || (mapped !== undefined && privateIPv4(mapped));
}

/**
 * Why `text` cannot be a webhook endpoint, or undefined when it can: an absolute https URL without
 * credentials; a local host (over http too) only while local webhooks are allowed.
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
  if (isLocalHost(url.hostname)) return allowLocal ? undefined : "must not point at a loopback or private host (ALLOW_LOCAL_WEBHOOKS is off)";
  return url.protocol === "https:" ? undefined : "must be an https URL";
}
