// GET /sitemap.xml — XML sitemap of the public documents and endpoints.
import { textDocument } from "@/lib/discovery/respond";
import { sitemapXml } from "@/lib/discovery/web";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = textDocument("sitemap-xml", sitemapXml, "application/xml");

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
