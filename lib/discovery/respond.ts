/**
 * Route-handler factories for the discovery documents: build the document for the
 * request's base URL, answer with its media type, a cache header and open CORS
 * (browser-based agents read these too). Any failure becomes the usual JSON error.
 *
 * The cache header is `public` only when the base URL is configured; a base derived
 * from the request is `private` (see lib/http/base-url.ts), so no shared cache hands one
 * caller's host to everyone.
 */
import { errorResponse } from "@/lib/errors";
import { baseCacheHeaders, baseUrlInfo } from "@/lib/http/base-url";

/** Seconds clients and shared caches may reuse a discovery document. */
export const DOCUMENT_MAX_AGE = 300;

const COMMON = {
  "Access-Control-Allow-Origin": "*",
  "X-Content-Type-Options": "nosniff",
};

type Handler = (req: Request) => Promise<Response>;

function handler(route: string, make: (req: Request, base: string) => Promise<{ body: BodyInit; type: string; headers?: Record<string, string> }>): Handler {
  return async (req) => {
    try {
      const info = baseUrlInfo(req);
      const { body, type, headers = {} } = await make(req, info.base);
      const cache = baseCacheHeaders(info, DOCUMENT_MAX_AGE);
      const vary = [cache.Vary, headers.Vary].filter(Boolean).join(", ");
      return new Response(body, { status: 200, headers: { ...COMMON, "Content-Type": type, ...cache, ...headers, ...(vary ? { Vary: vary } : {}) } });
    } catch (err) {
      return errorResponse(err, { route });
    }
  };
}

/** JSON document (pretty-printed: people read these too); `vary`: request headers the document depends on. */
export function jsonDocument(route: string, build: (base: string, req: Request) => unknown, mediaType = "application/json", vary?: string): Handler {
  return handler(route, async (req, base) => ({ body: JSON.stringify(await build(base, req), null, 2), type: mediaType, ...(vary ? { headers: { Vary: vary } } : {}) }));
}

/** Text document in UTF-8. */
export function textDocument(route: string, build: (base: string) => string, mediaType: string): Handler {
  return handler(route, async (_req, base) => ({ body: build(base), type: `${mediaType}; charset=utf-8` }));
}

/** Binary document. */
export function binaryDocument(route: string, build: (base: string) => Promise<Uint8Array>, mediaType: string): Handler {
  return handler(route, async (_req, base) => ({ body: Buffer.from(await build(base)), type: mediaType }));
}
