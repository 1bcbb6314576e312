// GET /.well-known/x402-manifest.json — paid resources with prices and x402 payment requirements.
import { jsonDocument } from "@/lib/discovery/respond";
import { x402Manifest } from "@/lib/discovery/x402";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("x402-manifest", x402Manifest);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
