/**
 * The shapes of the one call path (lib/access/call.ts): what a surface asks for and the
 * typed result it renders. Apart from the call path itself so that what observes a call
 * (lib/access/call-metrics.ts, lib/telemetry) can read them without importing it.
 */
import type { AnyProduct } from "@/lib/catalog/types";
import type { Credential, Surface } from "@/lib/access/credentials";
import type { Granted, Refused } from "@/lib/access/outcome";
import type { ApiError } from "@/lib/errors";
import type { MethodId } from "@/lib/payments/methods/types";

export interface CallInput {
  product: AnyProduct;
  /** Which price applies (HTTP price or tool price). */
  surface: Surface;
  credential: Credential;
  /** Raw parameters (query string values or tool arguments), validated here. */
  params: Record<string, string>;
  /** Where the parameters came from, for spec 2.6's `loc` ("query", "arguments"). */
  paramsAt: string;
  /** Absolute URL of the resource (payment requirements name it). */
  resource: string;
  clientIp: string;
  /** A HEAD request: check, never charge, never run. */
  head?: boolean;
}

/** Milliseconds per phase; a phase that did not run is absent. */
export interface CallTiming {
  verify?: number;
  handler?: number;
  settle?: number;
}

export type CallResult =
  /** `replayed`: a payment presented again, answered with what it got the first time. */
  | { kind: "granted"; value: unknown; outcome: Granted; timing: CallTiming; replayed?: boolean }
  | { kind: "refused"; refusal: Refused; timing: CallTiming }
  | {
      kind: "failed";
      error: ApiError;
      timing: CallTiming;
      /** The payment method of a per-call payment that was authorized before the call failed. */
      method?: MethodId | null;
    };
