// GET /.well-known/mcp.json — MCP server manifest: endpoint, transport and every tool with price.
import { jsonDocument } from "@/lib/discovery/respond";
import { mcpManifest } from "@/lib/discovery/cards";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("mcp-json", mcpManifest);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
