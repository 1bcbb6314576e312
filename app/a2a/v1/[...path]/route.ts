// /a2a/v1/* — A2A HTTP+JSON binding (1.0 with A2A-Version: 1.0, else 0.3): POST message:send, GET tasks/{id}, POST tasks/{id}:cancel, GET card; OPTIONS and 405 per resource. See lib/a2a.
import { serveRest } from "@/lib/a2a/rest";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ path: string[] }> };

async function handler(req: Request, ctx: Ctx): Promise<Response> {
  const { path } = await ctx.params;
  return serveRest(req, `/v1/${path.join("/")}`);
}

// Every method reaches serveRest, which answers OPTIONS, 405 and 404 per resource (Next's own OPTIONS would list every export).
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
