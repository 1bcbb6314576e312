// GET /llms.txt — Markdown service summary, served as text/markdown (the type the API catalog and Link header declare).
import { textDocument } from "@/lib/discovery/respond";
import { llmsTxt } from "@/lib/discovery/text";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = textDocument("llms-txt", llmsTxt, "text/markdown");

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
