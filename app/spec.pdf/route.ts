// GET /spec.pdf — the API description as a PDF (pdf-lib, built once per process).
import { binaryDocument } from "@/lib/discovery/respond";
import { specPdf } from "@/lib/discovery/pdf";

export const dynamic = "force-dynamic";

export const GET = binaryDocument("spec-pdf", specPdf, "application/pdf");
