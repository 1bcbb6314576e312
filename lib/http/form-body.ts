/**
 * The fields of a small POST body sent as JSON (`{"email": "…"}`) or as an HTML form
 * (application/x-www-form-urlencoded), for endpoints that take their few parameters in
 * the body so they stay out of URLs and access logs. Malformed bodies are spec 2.6
 * validation errors located at ["body"], like FastAPI's.
 */
import { ApiError, ValidationError } from "@/lib/errors";

/** Larger bodies are refused before parsing: these endpoints take a handful of short fields. */
const MAX_BODY_BYTES = 8 * 1024;

export async function bodyFields(req: Request): Promise<Record<string, unknown>> {
  const text = await req.text();
  if (new TextEncoder().encode(text).length > MAX_BODY_BYTES) throw new ApiError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
  if (text.trim() === "") return {};
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(text));
  if (type !== "application/json" && !type.endsWith("+json")) {
    throw new ValidationError([
      {
        loc: ["body"],
        msg: "Send the body as JSON (application/json) or as a form (application/x-www-form-urlencoded)",
        type: "model_attributes_type",
        input: null,
        ctx: { content_type: type || null },
      },
    ]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ValidationError([{ loc: ["body"], msg: "JSON decode error", type: "json_invalid", input: null, ctx: { error: (err as Error).message } }]);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ValidationError([{ loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", type: "model_attributes_type", input: parsed }]);
  }
  return parsed as Record<string, unknown>;
}
