// GET /.well-known/oauth-protected-resource — RFC 9728 metadata of the service (mechanism: x402).
import { jsonDocument } from "@/lib/discovery/respond";
import { protectedResourceMetadata } from "@/lib/discovery/oauth";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("oauth-protected-resource", (base) => protectedResourceMetadata(base));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
