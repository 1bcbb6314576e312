// GET /v1/usage — credits or quota left and recent charged calls of the caller's own key or bundle.
import { usageReport } from "@/lib/http/usage";
import { errorResponse, jsonResponse } from "@/lib/errors";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  try {
    return jsonResponse(await usageReport(req), { headers: { "Cache-Control": "no-store" } });
  } catch (err) {
    return errorResponse(err, { route: "usage" });
  }
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
