/**
 * The x402 settlement receipt headers: `PAYMENT-RESPONSE` (v2, CAIP-2 network) and
 * `X-PAYMENT-RESPONSE` (v1 clients, v1 network name), both base64 JSON.
 */
import { base64Json, toV1Network } from "@/lib/payments/x402/codec";

export function receiptHeaders(r: { transaction: string; network: string; payer: string | null }): Record<string, string> {
  const v2 = { success: true, transaction: r.transaction, network: r.network, payer: r.payer };
  const v1 = { ...v2, network: toV1Network(r.network) };
  return { "PAYMENT-RESPONSE": base64Json(v2), "X-PAYMENT-RESPONSE": base64Json(v1) };
}
