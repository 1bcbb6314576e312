// GET /.well-known/agent-skills/{skill}/SKILL.md — the skill document (only the one skill this service publishes).
import { textDocument } from "@/lib/discovery/respond";
import { skillMarkdown } from "@/lib/discovery/skills";
import { SKILL_NAME } from "@/lib/discovery/documents";
import { notFound } from "@/lib/http/responses";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

const serve = textDocument("skill-md", skillMarkdown, "text/markdown");

export async function GET(req: Request, ctx: { params: Promise<{ skill: string }> }): Promise<Response> {
  const { skill } = await ctx.params;
  return skill === SKILL_NAME ? serve(req) : notFound(new URL(req.url).pathname);
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
