// GET /v1/free-key — mint a free-tier API key (optional ?email=), rate-limited per IP.
// POST /v1/free-key — the same with the e-mail in a JSON or form body, so it stays out of
// URLs and access logs (the web page uses it; GET stays for agents, spec 4.2).
import { FREE_KEY_PARAMS, mintFreeKey } from "@/lib/access/free-key";
import { paramsSchema } from "@/lib/catalog/params";
import { validateOrThrow } from "@/lib/catalog/validate";
import { errorResponse, jsonResponse } from "@/lib/errors";
import { clientIp } from "@/lib/http/client-ip";
import { bodyFields } from "@/lib/http/form-body";
import { queryRecord } from "@/lib/http/query";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

const bodySchema = paramsSchema(FREE_KEY_PARAMS);

async function mint(raw: Record<string, string | undefined>, req: Request): Promise<Response> {
  const { body, headers } = await mintFreeKey(raw, clientIp(req));
  return jsonResponse(body, { headers: { ...headers, "Cache-Control": "no-store" } });
}

export async function GET(req: Request): Promise<Response> {
  try {
    return await mint(queryRecord(new URL(req.url), Object.keys(FREE_KEY_PARAMS)), req);
  } catch (err) {
    return errorResponse(err, { route: "free-key" });
  }
}

export async function POST(req: Request): Promise<Response> {
  try {
    const fields = await bodyFields(req);
    // Checked here first so a bad e-mail is reported at ["body", "email"], where it was sent.
    validateOrThrow(bodySchema, fields, "body");
    return await mint(fields as Record<string, string | undefined>, req);
  } catch (err) {
    return errorResponse(err, { route: "free-key" });
  }
}

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET", "POST"]);
