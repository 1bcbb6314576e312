/** Reading a request body with a size cap, for the JSON-RPC style endpoints (MCP, A2A). */

/** Reads at most `max` bytes; null when the body is larger. */
export async function readBounded(req: Request, max: number): Promise<string | null> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > max) return null;
  // A declared length is the body's length (HTTP framing ends the body there): read it
  // whole (text() of a request without a body is ""). Asked first, so a body the fast
  // lane already holds as bytes is not turned into a stream just to be looked at.
  if (Number.isFinite(declared)) return req.text();
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
