// GET /.well-known/x402-manifest.json — paid resources with prices and x402 payment requirements.
import { jsonDocument } from "@/lib/discovery/respond";
import { x402Manifest } from "@/lib/discovery/x402";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("x402-manifest", x402Manifest);
