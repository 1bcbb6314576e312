// GET /.well-known/agent-skills/index.json — Agent Skills discovery index (sha256 of the SKILL.md served).
import { jsonDocument } from "@/lib/discovery/respond";
import { skillsIndex } from "@/lib/discovery/skills";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("agent-skills-index", skillsIndex);
