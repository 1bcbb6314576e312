// GET /openapi.json — OpenAPI 3.1.0 description generated from the catalog (cached per base URL).
import { jsonDocument } from "@/lib/discovery/respond";
import { buildOpenApi } from "@/lib/discovery/openapi";

export const dynamic = "force-dynamic";

// The catalog and configuration are fixed for the life of the process.
const built = new Map<string, unknown>();

export const GET = jsonDocument("openapi", (base) => {
  if (!built.has(base)) built.set(base, buildOpenApi(base));
  return built.get(base);
});
