// GET /v1/sample — reduced sentiment snapshot, free, 10 per hour per client IP.
import { serveSample } from "@/lib/http/sample";

export const dynamic = "force-dynamic";

export const GET = serveSample;
