// GET /robots.txt — crawler policy with content signals and the sitemap location.
import { textDocument } from "@/lib/discovery/respond";
import { robotsTxt } from "@/lib/discovery/web";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = textDocument("robots-txt", robotsTxt, "text/plain");

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
