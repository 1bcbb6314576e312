import { startSimulator } from "@/lib/upstream-sim/server";
import { startService } from "./tests/helpers/service";
const mode = process.argv[2] ?? "a2a";
const sim = await startSimulator({ seed: 402 });
const svc = await startService({ env: { ...sim.env, UPSTREAM_MODE: "live", LOG_LEVEL: "warn", FREE_KEY_DAILY_QUOTA: "100000000" } });
const key = ((await (await fetch(`${svc.url}/v1/free-key`)).json()) as { api_key: string }).api_key;
const body = JSON.stringify({ message: { messageId: "bench", role: "ROLE_USER", parts: [{ data: {} }], metadata: { skill: "fng", api_key: key } } });
const one = () => mode === "a2a"
  ? fetch(`${svc.url}/a2a/v1/message:send`, { method: "POST", headers: { "Content-Type": "application/a2a+json", "A2A-Version": "1.0" }, body }).then((r) => r.text())
  : fetch(`${svc.url}/v1/fng`, { headers: { "X-Api-Key": key } }).then((r) => r.text());
console.log((await one()).slice(0, 200));
const end = Date.now() + 8000; let n = 0;
await Promise.all(Array.from({ length: 16 }, async () => { while (Date.now() < end) { await one(); n++; } }));
console.log(mode, "rps", n / 8);
await svc.stop(); await sim.close();
