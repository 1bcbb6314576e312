import { ApiError } from "@/lib/errors/api-error";
import { log } from "@/lib/log";

const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };

/** JSON body of an error: spec 2.6 for 422, `{error:{code,message,...}}` otherwise. */
export function errorBody(err: ApiError): unknown {
  return err.httpBody();
}

/**
 * Turns anything thrown into a response. Known errors keep their status; anything else
 * becomes a generic 500 whose details go to the log only.
 */
export function errorResponse(err: unknown, context: Record<string, unknown> = {}): Response {
  const known = toApiError(err, context);
  return new Response(JSON.stringify(errorBody(known)), {
    status: known.status,
    headers: { ...JSON_HEADERS, ...known.httpHeaders() },
  });
}

/** Normalises a thrown value into an ApiError, logging unexpected ones. */
export function toApiError(err: unknown, context: Record<string, unknown> = {}): ApiError {
  if (err instanceof ApiError) return err;
  log.error("unhandled_error", {
    ...context,
    name: (err as Error)?.name,
    message: (err as Error)?.message,
    stack: (err as Error)?.stack?.split("\n").slice(0, 6).join(" | "),
  });
  return new ApiError("internal_error");
}

/** A JSON success response. */
export function jsonResponse(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { "Content-Type": "application/json; charset=utf-8", ...init.headers },
  });
}
