import { ApiError, ServiceUnavailableError } from "@/lib/errors/api-error";
import { log } from "@/lib/log";

const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };

/** JSON body of an error: spec 2.6 for 422, `{error:{code,message,...}}` otherwise. */
export function errorBody(err: ApiError): unknown {
  return err.httpBody();
}

/**
 * Turns anything thrown into a response. Known errors keep their status; anything else
 * becomes a generic 503 `service_unavailable` with Retry-After (never a 500) whose
 * details go to the log only.
 */
export function errorResponse(err: unknown, context: Record<string, unknown> = {}): Response {
  const known = toApiError(err, context);
  return new Response(JSON.stringify(errorBody(known)), {
    status: known.status,
    headers: { ...JSON_HEADERS, ...known.httpHeaders() },
  });
}

/**
 * Normalises a thrown value into an ApiError. Unexpected ones (a database that went
 * away, a bug) are logged with their stack and answered as 503 `service_unavailable`:
 * the caller may retry, nothing was charged, and no internals leak into the response.
 */
export function toApiError(err: unknown, context: Record<string, unknown> = {}): ApiError {
  if (err instanceof ApiError) return err;
  logUnexpected(err, context);
  return new ServiceUnavailableError();
}

/** Logs an unexpected error with a short stack (logs only, never a response). */
export function logUnexpected(err: unknown, context: Record<string, unknown> = {}): void {
  log.error("unhandled_error", {
    ...context,
    name: (err as Error)?.name,
    message: (err as Error)?.message?.split("\n")[0],
    stack: (err as Error)?.stack?.split("\n").slice(1, 7).map((l) => l.trim()).join(" | "),
  });
}

/** A JSON success response. */
export function jsonResponse(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { "Content-Type": "application/json; charset=utf-8", ...init.headers },
  });
}
