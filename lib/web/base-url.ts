/** Base URL for examples on server-rendered pages (same rule as the JSON API's). */
import { headers } from "next/headers";
import { baseUrl } from "@/lib/http/base-url";

export async function pageBaseUrl(): Promise<string> {
  const h = await headers();
  const host = h.get("host") ?? "localhost";
  return baseUrl(new Request(`http://${host}/`, { headers: h }));
}
