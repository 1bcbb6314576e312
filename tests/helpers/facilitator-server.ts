/**
 * A real x402 facilitator served over HTTP (`GET /supported`, `POST /verify`,
 * `POST /settle`, the wire protocol of @x402/core's HTTPFacilitatorClient), for tests of
 * the service's FACILITATOR_URL mode.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { x402Facilitator } from "@x402/core/facilitator";

export async function serveFacilitator(facilitator: x402Facilitator): Promise<{ url: string; calls: string[]; stop(): Promise<void> }> {
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", async () => {
      const send = (status: number, v: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(v));
      };
      calls.push(`${req.method} ${req.url}`);
      try {
        if (req.method === "GET" && req.url === "/supported") return send(200, facilitator.getSupported());
        const { paymentPayload, paymentRequirements } = JSON.parse(body || "{}");
        if (req.method === "POST" && req.url === "/verify") return send(200, await facilitator.verify(paymentPayload, paymentRequirements));
        if (req.method === "POST" && req.url === "/settle") return send(200, await facilitator.settle(paymentPayload, paymentRequirements));
        send(404, { error: "not found" });
      } catch (err) {
        send(500, { error: (err as Error).message });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
