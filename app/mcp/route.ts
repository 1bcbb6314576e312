// POST /mcp — MCP over streamable HTTP (18 tools); GET /mcp — server description (JSON), or ?path=<view>.
// Also DELETE, PUT, PATCH, OPTIONS: JSON answers (405 where not served). See lib/mcp/http.ts.
import { serveMcp } from "@/lib/mcp/http";

export const dynamic = "force-dynamic";

const handler = (req: Request): Promise<Response> => serveMcp(req, null);

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
