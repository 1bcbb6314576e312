// GET /openapi.json — OpenAPI 3.1.0 description generated from the catalog (built once; only `servers` follows the base URL).
import { jsonDocument } from "@/lib/discovery/respond";
import { buildOpenApi } from "@/lib/discovery/openapi";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("openapi", buildOpenApi);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
