// GET /.well-known/mcp/server-card.json — MCP server card (schema 1.0) for /mcp.
import { jsonDocument } from "@/lib/discovery/respond";
import { mcpServerCard } from "@/lib/discovery/cards";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("mcp-server-card", mcpServerCard);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
