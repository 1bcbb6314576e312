/**
 * The error table has no 500: anything unexpected becomes 503 service_unavailable with
 * Retry-After, and the response carries none of the original error's text.
 */
import { describe, expect, it } from "vitest";
import { ApiError, ERROR_CODES, errorResponse, toApiError, UnavailableError } from "@/lib/errors";

describe("errors", () => {
  it("declares no 5xx other than 503", () => {
    for (const [code, e] of Object.entries(ERROR_CODES)) if (e.status >= 500) expect(e.status, code).toBe(503);
  });

  it("answers an unexpected error with 503 service_unavailable, Retry-After and a generic message", async () => {
    const boom = new Error("connect ECONNREFUSED 127.0.0.1:5432 at Pool.connect (/srv/node_modules/pg/lib/pool.js:45)");
    const res = errorResponse(boom, { route: "test" });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    const text = await res.text();
    expect(JSON.parse(text).error).toMatchObject({ code: "service_unavailable", retry_after: expect.any(Number) });
    expect(text).not.toMatch(/ECONNREFUSED|pool\.js|5432/);
    expect(toApiError("a thrown string").code).toBe("service_unavailable");
  });

  it("keeps known errors as they are", () => {
    const known = new UnavailableError("upstream down");
    expect(toApiError(known)).toBe(known);
    expect(toApiError(new ApiError("not_found")).status).toBe(404);
  });
});
