// GET /auth.md — how agents get access (x402, bundle token, free-tier key); no registration.
import { textDocument } from "@/lib/discovery/respond";
import { authMd } from "@/lib/discovery/auth-md";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = textDocument("auth-md", authMd, "text/markdown");

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
