// GET, POST, PUT, PATCH, DELETE /mcp/{path} — JSON views of the MCP server ("tools", "tools/<name>"); unknown 404, invalid 422.
import { serveMcp } from "@/lib/mcp/http";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ path: string[] }> };

const handler = async (req: Request, ctx: Ctx): Promise<Response> => serveMcp(req, (await ctx.params).path);

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
