/**
 * The usual integration fixture: an in-process upstream simulator (the test controls
 * its faults and reads its request counts) and the real service pointed at it.
 */
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { startService, type Service, type ServiceOptions } from "./service";

export interface Fixture {
  sim: Simulator;
  svc: Service;
  get(path: string, init?: RequestInit): Promise<Response>;
  json<T = any>(path: string, init?: RequestInit): Promise<{ status: number; body: T; headers: Headers }>;
  close(): Promise<void>;
}

export async function startFixture(opts: ServiceOptions & { seed?: number } = {}): Promise<Fixture> {
  const sim = await startSimulator({ seed: opts.seed ?? 402 });
  let svc: Service;
  try {
    svc = await startService({ ...opts, env: { ...sim.env, UPSTREAM_MODE: "live", ...opts.env } });
  } catch (err) {
    await sim.close();
    throw err;
  }
  const get = (path: string, init?: RequestInit) => fetch(svc.url + path, init);
  return {
    sim,
    svc,
    get,
    json: async (path, init) => {
      const res = await get(path, init);
      const text = await res.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: res.status, body, headers: res.headers };
    },
    close: async () => {
      await svc.stop();
      await sim.close();
    },
  };
}
