// GET /v1/* — the HTTP operation of every catalog product (generated from lib/catalog).
// OPTIONS names what a product path serves; other methods answer a JSON 405 with the same Allow.
import { productByPath } from "@/lib/catalog";
import { serveProduct } from "@/lib/http/serve-product";
import { methodNotAllowed, optionsResponse } from "@/lib/http/methods";
import { notFound } from "@/lib/http/responses";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ path: string[] }> };

const SERVED = ["GET"] as const;

export async function GET(req: Request, ctx: Ctx): Promise<Response> {
  const { path } = await ctx.params;
  const product = productByPath(`/v1/${path.join("/")}`);
  return product ? serveProduct(req, product) : notFound(new URL(req.url).pathname);
}

/**
 * HEAD answers GET's status and headers without running the handler or charging: a
 * payment is neither verified nor settled, a bundle or key is only looked up. (Next
 * would otherwise answer HEAD by running GET, which would charge.)
 */
export { GET as HEAD };

const other = async (req: Request, ctx: Ctx): Promise<Response> => {
  const { path } = await ctx.params;
  if (!productByPath(`/v1/${path.join("/")}`)) return notFound(new URL(req.url).pathname);
  return req.method === "OPTIONS" ? optionsResponse(SERVED) : methodNotAllowed(req.method, SERVED);
};
export { other as POST, other as PUT, other as PATCH, other as DELETE, other as OPTIONS };
