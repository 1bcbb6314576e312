// GET /v1/* — the HTTP operation of every catalog product (generated from lib/catalog).
import { productByPath } from "@/lib/catalog";
import { serveProduct } from "@/lib/http/serve-product";
import { methodNotAllowed, notFound } from "@/lib/http/responses";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ path: string[] }> };

export async function GET(req: Request, ctx: Ctx): Promise<Response> {
  const { path } = await ctx.params;
  const product = productByPath(`/v1/${path.join("/")}`);
  return product ? serveProduct(req, product) : notFound(new URL(req.url).pathname);
}

const other = async (req: Request, ctx: Ctx): Promise<Response> => {
  const { path } = await ctx.params;
  const product = productByPath(`/v1/${path.join("/")}`);
  return product ? methodNotAllowed(["GET"]) : notFound(new URL(req.url).pathname);
};
export { other as POST, other as PUT, other as PATCH, other as DELETE };
