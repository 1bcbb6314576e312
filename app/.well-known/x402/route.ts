// GET /.well-known/x402 — x402 discovery document (payable resource URLs and instructions).
import { jsonDocument } from "@/lib/discovery/respond";
import { x402Discovery } from "@/lib/discovery/x402";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("x402-discovery", x402Discovery);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
