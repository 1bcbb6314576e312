// GET /.well-known/agent-skills/index.json — Agent Skills discovery index (sha256 of the SKILL.md served).
import { jsonDocument } from "@/lib/discovery/respond";
import { skillsIndex } from "@/lib/discovery/skills";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("agent-skills-index", skillsIndex);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
