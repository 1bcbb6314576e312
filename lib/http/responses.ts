import { ApiError, errorResponse } from "@/lib/errors";

/** JSON 404 naming the path (never an HTML page). */
export function notFound(path: string): Response {
  return errorResponse(new ApiError("not_found", `No resource at ${path}. See /v1/manifest or /openapi.json.`));
}
