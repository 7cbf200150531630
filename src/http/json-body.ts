import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { validate, type RequestSchema } from "./validation";

// CONTRACT part 3 (413) and issue limits: bodies are small, flat JSON objects.
export const BODY_LIMIT_BYTES = 64 * 1024;
export const JSON_DEPTH_LIMIT = 32;

const tooLarge = () => ApiError.of("payload_too_large", `The request body is larger than ${BODY_LIMIT_BYTES} bytes.`);
const invalidJson = (detail: string) => ApiError.of("invalid_json", detail);

function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [mediaType, ...parameters] = contentType.split(";").map((part) => part.trim().toLowerCase());
  if (mediaType !== "application/json") return false;
  return parameters.every((p) => !p.startsWith("charset=") || p === "charset=utf-8" || p === 'charset="utf-8"');
}

// Counted while reading, so a chunked body without Content-Length cannot make us buffer more.
async function readLimited(request: Request): Promise<Uint8Array> {
  const declared = request.headers.get("Content-Length");
  if (declared !== null && Number(declared) > BODY_LIMIT_BYTES) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > BODY_LIMIT_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function nestedTooDeeply(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > JSON_DEPTH_LIMIT) return true;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return false;
}

/** Reads, parses and validates a JSON object body; the valid value lands in `c.var.body`. */
export function jsonBody(schema: RequestSchema): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!isJsonMediaType(c.req.header("Content-Type"))) {
      throw ApiError.of("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.", { header: "Content-Type" });
    }
    const bytes = await readLimited(c.req.raw);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      throw invalidJson("The request body is not valid UTF-8.");
    }
    if (nestedTooDeeply(text)) throw invalidJson(`The request body is nested deeper than ${JSON_DEPTH_LIMIT} levels.`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalidJson("The request body is not valid JSON.");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalidJson("The request body must be a JSON object.");

    const result = validate(schema, parsed as Record<string, unknown>);
    if ("errors" in result) throw new ApiError(result.errors);
    c.set("rawBody", text);
    c.set("body", result.data);
    await next();
  };
}
