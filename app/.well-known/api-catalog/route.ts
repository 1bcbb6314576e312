// GET /.well-known/api-catalog — RFC 9727 API catalog (application/linkset+json).
import { jsonDocument } from "@/lib/discovery/respond";
import { API_CATALOG_PROFILE, apiCatalog } from "@/lib/discovery/catalogs";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("api-catalog", apiCatalog, `application/linkset+json; profile="${API_CATALOG_PROFILE}"`);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
