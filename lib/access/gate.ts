/**
 * The access gate shared by HTTP and MCP. Life cycle: authorize → run → commit.
 * `authorize` verifies the payment or reserves the credit; the handler runs; only when
 * it succeeded does `commit` settle the payment or keep the consumed credit and write
 * the receipt. A failed handler calls `release`: nothing is settled, the credit returns.
 *
 * Service-core slice: the payment, bundle and key logic arrive with the payments
 * issue; until then every call is let through as "open" (the seams are real and every
 * route goes through them).
 */
import type { AnyProduct } from "@/lib/catalog/types";
import type { Credential, Surface } from "@/lib/access/credentials";

export interface AccessRequest {
  product: AnyProduct;
  surface: Surface;
  credential: Credential;
  /** Absolute URL of the resource (payment requirements name it). */
  resource: string;
  clientIp: string;
}

export interface Grant {
  kind: Credential["kind"] | "open";
  /** Headers to attach to the response whatever the outcome (quota, credits). */
  headers: Record<string, string>;
  /** Settle / consume for good; returns headers for the success response (receipt). */
  commit(): Promise<Record<string, string>>;
  /** Undo the reservation; nothing is charged. */
  release(): Promise<void>;
}

/** Decides whether the call may run; throws an ApiError (402/429/...) when not. */
export async function authorize(req: AccessRequest): Promise<Grant> {
  void req;
  return {
    kind: "open",
    headers: {},
    commit: async () => ({}),
    release: async () => undefined,
  };
}

/** authorize → run → commit, or release when `run` throws. */
export async function runGated<T>(req: AccessRequest, run: () => Promise<T>): Promise<{ value: T; headers: Record<string, string> }> {
  const grant = await authorize(req);
  let value: T;
  try {
    value = await run();
  } catch (err) {
    await grant.release();
    throw err;
  }
  const receipt = await grant.commit();
  return { value, headers: { ...grant.headers, ...receipt } };
}
