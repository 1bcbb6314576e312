// GET /.well-known/ai-catalog.json — agentic resource discovery manifest (AI catalog 1.0).
import { jsonDocument } from "@/lib/discovery/respond";
import { aiCatalog } from "@/lib/discovery/catalogs";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("ai-catalog", aiCatalog);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
