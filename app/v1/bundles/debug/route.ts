// GET /v1/bundles/debug — internal ledger counts and health (admin credential only; 404 otherwise).
import { ledgerReport } from "@/lib/http/bundles-debug";
import { isAdmin } from "@/lib/http/admin";
import { errorResponse, jsonResponse } from "@/lib/errors";
import { notFound } from "@/lib/http/responses";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  if (!isAdmin(req)) return notFound(new URL(req.url).pathname);
  try {
    return jsonResponse(await ledgerReport(), { headers: { "Cache-Control": "no-store" } });
  } catch (err) {
    return errorResponse(err, { route: "bundles-debug" });
  }
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
