// GET /.well-known/oauth-protected-resource/{rest} — RFC 9728 metadata of {base}/{rest}; 422 when rest is malformed.
import { jsonDocument } from "@/lib/discovery/respond";
import { protectedResourceMetadata, restFromPath } from "@/lib/discovery/oauth";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("oauth-protected-resource-rest", (base, req) => protectedResourceMetadata(base, restFromPath(new URL(req.url).pathname)));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
