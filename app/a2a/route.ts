// GET /a2a — JSON description of the A2A server (the HTTP+JSON binding's base URL; its methods are under /a2a/v1/). See lib/a2a.
import { jsonDocument } from "@/lib/discovery/respond";
import { a2aDescription } from "@/lib/a2a/info";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("a2a", a2aDescription);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
