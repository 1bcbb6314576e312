/**
 * The admin credential: `Authorization: Bearer <ADMIN_TOKEN>`. It opens the operator
 * endpoints (/v1/bundles/debug, /metrics); without ADMIN_TOKEN configured nothing does.
 */
import { timingSafeEqual, createHash } from "node:crypto";
import { env } from "@/lib/config/env";

function sameSecret(a: string, b: string): boolean {
  // Compare digests so the comparison time does not depend on the secret's length.
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** Whether `req` carries the admin credential. */
export function isAdmin(req: Request): boolean {
  const admin = env().ADMIN_TOKEN;
  if (!admin) return false;
  const m = req.headers.get("authorization")?.match(/^Bearer\s+(\S+)$/i);
  return Boolean(m && sameSecret(m[1]!, admin));
}

