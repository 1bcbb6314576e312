// POST /api/solana-rpc — the pages' same-origin relay of the few Solana reads a payment needs (lib/http/solana-relay.ts).
import { relaySolanaRpc } from "@/lib/http/solana-relay";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const POST = relaySolanaRpc;

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["POST"]);
