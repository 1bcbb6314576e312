/**
 * Identity and fixed limits of the MCP server at {base_url}/mcp (spec 1.2, 9). Other
 * surfaces (server card, discovery documents) import these instead of repeating them.
 */
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { MAX_CREDENTIAL } from "@/lib/access/credentials";

/** Name and version reported in `initialize` (spec 9: tool server version 0.2.0). */
export const MCP_SERVER_INFO = { name: "echo-x402-sentiment", version: "0.2.0" } as const;

/** Where the streamable-HTTP transport is mounted. */
export const MCP_PATH = "/mcp";

/** Transport name as the spec and server cards write it. */
export const MCP_TRANSPORT = "streamable-http";

/** Protocol version the spec declares (spec 9); newer ones are negotiated too. */
export const MCP_SPEC_PROTOCOL_VERSION = "2024-11-05";

/** The 2025-era protocol revisions negotiated in `initialize` (served statelessly); 2026-era envelope clients are served by the SDK too. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [...new Set([LATEST_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS, MCP_SPEC_PROTOCOL_VERSION])];

/**
 * Largest JSON-RPC body accepted on POST /mcp. Tool arguments are short strings and a
 * base64 x402 payment is about 1.5 KB, so 64 KiB leaves ample room while keeping a
 * single request from tying up the parser.
 */
export const MCP_MAX_BODY_BYTES = 64 * 1024;

/** Longest credential argument accepted (same bound the HTTP headers get). */
export const MCP_MAX_CREDENTIAL_CHARS = MAX_CREDENTIAL;
