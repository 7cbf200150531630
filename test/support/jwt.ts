import { JWT_SECRET } from "./api";

// RFC 6750 section 3: error_description holds only %x20-21 / %x23-5B / %x5D-7E.
export const INVALID_TOKEN_CHALLENGE =
  /^Bearer realm="voucher-billing-api", error="invalid_token"(, error_description="[\x20\x21\x23-\x5B\x5D-\x7E]*")?$/;

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/=+$/, "")
    .replace(/\+/g, "-")
    .replace(/\//g, "_");

/** A token part: a string is taken as the JSON text itself, anything else is serialized. */
export const encodePart = (part: unknown) =>
  base64url(new TextEncoder().encode(typeof part === "string" ? part : JSON.stringify(part)));

/** A token with a hand-made header and payload, HMAC-SHA256-signed with the test secret. */
export async function handMade(header: unknown, payload: unknown, secret = JWT_SECRET): Promise<string> {
  const input = `${encodePart(header)}.${encodePart(payload)}`;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(input)));
  return `${input}.${base64url(signature)}`;
}
