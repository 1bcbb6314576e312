// GET /spec.pdf — the API description as a PDF (pdf-lib, built once per process).
import { binaryDocument } from "@/lib/discovery/respond";
import { specPdf } from "@/lib/discovery/pdf";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = binaryDocument("spec-pdf", specPdf, "application/pdf");

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
