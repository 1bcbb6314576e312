// POST /mcp — MCP over streamable HTTP (18 tools); GET/PUT/PATCH /mcp — server description (JSON), or ?path=<view>;
// DELETE /mcp — "stateless, no session to end" (JSON); invalid path 422. See lib/mcp/http.ts.
import { serveMcp } from "@/lib/mcp/http";

export const dynamic = "force-dynamic";

const handler = (req: Request): Promise<Response> => serveMcp(req, null);

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
