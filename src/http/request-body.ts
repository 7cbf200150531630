import type { Context } from "hono";
import * as z from "zod/mini";
import { ApiError, type ErrorItem } from "../errors";

// docs/api.md part 3 (413): bodies are small, flat JSON objects.
export const BODY_LIMIT_BYTES = 64 * 1024;
const JSON_DEPTH_LIMIT = 32;
/** Enough to correct a request; a body of thousands of unknown fields must not echo them all. */
const MAX_REPORTED_ERRORS = 20;

/** The body schema of a route that takes none: a body sent anyway is not read. */
export const NO_BODY = z.undefined();

const tooLarge = (limit: number) => ApiError.of("payload_too_large", `The request body is larger than ${limit} bytes.`);
const invalidJson = (detail: string) => ApiError.of("invalid_json", detail);

function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [mediaType, ...parameters] = contentType.split(";").map((part) => part.trim().toLowerCase());
  if (mediaType !== "application/json") return false;
  return parameters.every((p) => !p.startsWith("charset=") || p === "charset=utf-8" || p === 'charset="utf-8"');
}

/**
 * Counted while reading, so a chunked body without Content-Length cannot make us buffer more.
 * It reads a clone and leaves `request.body` untouched, as when Content-Length is over the limit: a
 * body read in part and cancelled left `wrangler dev`'s next request hanging (workers-sdk#15709),
 * while an unread one is drained by its middleware (and discarded by the runtime when deployed).
 * The tee holds for the untouched branch only what was read here: at most the limit and a chunk.
 */
async function readLimited(request: Request, limit = BODY_LIMIT_BYTES): Promise<Uint8Array> {
  const declared = request.headers.get("Content-Length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array();
  const reader = request.clone().body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
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
      if (ch === 0x5c)
        i++; // skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > JSON_DEPTH_LIMIT) return true;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return false;
}

const pointerOf = (path: PropertyKey[]): string =>
  "/" + path.map((key) => String(key).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/** One error per offending field, with its JSON pointer, in the order of the schema. */
function fieldErrors(issues: z.core.$ZodIssue[], input: Record<string, unknown>): [ErrorItem, ...ErrorItem[]] {
  const errors = new Map<string, ErrorItem>();
  const add = (path: PropertyKey[], detail: string) => {
    const pointer = pointerOf(path);
    if (!errors.has(pointer)) errors.set(pointer, { detail, code: "validation_failed", source: { pointer } });
  };
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) add([...issue.path, key], `${JSON.stringify(key)} is not a known field.`);
      continue;
    }
    const field = issue.path.map(String).join(".");
    const missing = issue.path.length === 1 && input[issue.path[0] as string] === undefined;
    add(issue.path, missing ? `${field} is required.` : `${field} ${issue.message}.`);
  }
  return [...errors.values()].slice(0, MAX_REPORTED_ERRORS) as [ErrorItem, ...ErrorItem[]];
}

/** The body as the route's schema returned it, and the JSON the client sent. */
interface JsonBody<T> {
  value: T;
  json: unknown;
}

/**
 * Reads, parses and validates a JSON object body: 415, 413, 400 invalid_json and 422 in that
 * order (docs/api.md part 12). Routes without a body (NO_BODY) do not come here (http/mount.ts).
 */
export async function readJsonBody<B extends z.ZodMiniType>(c: Context, schema: B): Promise<JsonBody<z.output<B>>> {
  if (!isJsonMediaType(c.req.header("Content-Type"))) {
    throw ApiError.of("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.", {
      header: "Content-Type",
    });
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
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw invalidJson("The request body must be a JSON object.");

  const result = schema.safeParse(parsed);
  if (!result.success) throw new ApiError(fieldErrors(result.error.issues, parsed as Record<string, unknown>));
  return { value: result.data, json: parsed };
}

/** A route that takes a file as its body (a bank statement), not JSON: its media types and size limit. */
export interface Upload {
  mediaTypes: readonly string[];
  limit: number;
  /** What the file is, for the 415's detail. */
  what: string;
}

/**
 * Reads an uploaded file: 415 for another media type (a charset parameter is fine), 413 over the limit
 * (docs/api.md part 3). `digest` stands for the file in an Idempotency-Key's fingerprint.
 */
export async function readUpload(c: Context, upload: Upload): Promise<{ bytes: Uint8Array; digest: string }> {
  const mediaType = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!mediaType || !upload.mediaTypes.includes(mediaType))
    throw ApiError.of(
      "unsupported_media_type",
      `Send ${upload.what} with Content-Type: ${upload.mediaTypes.join(" or ")}.`,
      { header: "Content-Type" },
    );
  const bytes = await readLimited(c.req.raw, upload.limit);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return { bytes, digest: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("") };
}
