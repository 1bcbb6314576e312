// GET / with Accept: application/json (rewritten here by next.config.ts) — service info.
import { serviceInfo } from "@/lib/http/service-info";
import { jsonResponse } from "@/lib/errors";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  return jsonResponse(await serviceInfo(req));
}
