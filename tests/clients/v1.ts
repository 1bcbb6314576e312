/**
 * The x402 v1 client (`x402-fetch@1`), installed in this folder's own node_modules so its
 * wallet-SDK dependency tree stays out of the service's install (see package.json here).
 */
export { wrapFetchWithPayment } from "x402-fetch";
