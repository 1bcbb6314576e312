// GET /.well-known/oauth-authorization-server — states that x402 (not OAuth) is the authorization mechanism.
import { jsonDocument } from "@/lib/discovery/respond";
import { authorizationServerMetadata } from "@/lib/discovery/oauth";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("oauth-authorization-server", authorizationServerMetadata);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
