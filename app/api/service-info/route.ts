// GET / with Accept: application/json (rewritten here by next.config.ts) — service info.
import { serviceInfo } from "@/lib/http/service-info";
import { jsonResponse } from "@/lib/errors";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  const res = jsonResponse(await serviceInfo(req));
  // "/" answers this JSON or the home page by Accept: caches must key on it. Set here so
  // every deploy shape carries it (plain `next start` has no custom server to add it).
  res.headers.append("Vary", "Accept");
  return res;
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
