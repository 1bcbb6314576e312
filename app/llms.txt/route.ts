// GET /llms.txt — Markdown service summary (text/markdown when accepted, text/plain otherwise).
import { markdownDocument } from "@/lib/discovery/respond";
import { llmsTxt } from "@/lib/discovery/text";

export const dynamic = "force-dynamic";

export const GET = markdownDocument("llms-txt", llmsTxt);
