import { ApiError, errorResponse } from "@/lib/errors";

/** JSON 404 naming the path (never an HTML page). */
export function notFound(path: string): Response {
  return errorResponse(new ApiError("not_found", `No resource at ${path}. See /v1/manifest or /openapi.json.`));
}

/** JSON 405 with the Allow header. */
export function methodNotAllowed(allow: string[]): Response {
  return errorResponse(new ApiError("method_not_allowed", `Use ${allow.join(" or ")}.`, { headers: { Allow: allow.join(", ") } }));
}
