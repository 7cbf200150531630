/** Standard base64 of bytes (btoa works on binary strings). */
export const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));

export const fromBase64 = (text: string): Uint8Array => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

/** Unpadded base64url of bytes (JWTs, list cursors). */
export const toBase64url = (bytes: Uint8Array): string =>
  toBase64(bytes).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

export const fromBase64url = (text: string): Uint8Array => fromBase64(text.replace(/-/g, "+").replace(/_/g, "/"));
