// GET /v1/sample — reduced sentiment snapshot, free, 10 per hour per client IP.
import { serveSample } from "@/lib/http/sample";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = serveSample;

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
