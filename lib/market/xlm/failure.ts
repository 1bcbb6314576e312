/**
 * One-line reasons for a failed upstream, safe to put in a response: provider, failure
 * kind and HTTP status, never URLs, bodies or stack traces. Unexpected (non-upstream)
 * errors are logged in full and reported as "internal error".
 */
import { UpstreamError } from "@/lib/market/upstream";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";

function detail(err: UpstreamError): string {
  switch (err.kind) {
    case "timeout":
      return "timed out";
    case "network":
      return "unreachable";
    case "parse":
      return "unexpected response format";
    case "rate_limited":
      return err.note ?? "rate limited (HTTP 429)";
    case "http":
      // A provider's named refusal (geo block, firewall, IP ban) says more than the status.
      return err.note ?? (err.status === 451 ? "unavailable from this server's location (HTTP 451)" : `HTTP ${err.status ?? "error"}`);
    case "upstream_error":
      return err.message.replace(`${err.provider}: `, "");
  }
}

/** Why `what` (a component or venue) could not be read. */
export function failureReason(err: unknown, what: string): string {
  if (err instanceof UpstreamError) return `${err.provider}: ${detail(err)}`;
  if (err instanceof ApiError) return err.message;
  log.error("xlm.component_failed", { component: what, name: (err as Error)?.name, message: (err as Error)?.message });
  return `${what}: internal error`;
}
