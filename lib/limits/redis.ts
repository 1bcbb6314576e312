/**
 * Adapts ioredis to the small Redis surface @upstash/ratelimit uses (evalsha, eval,
 * get, set). Upstash's Lua scripts start with `#!lua flags=allow-key-locking`, a shebang
 * only Upstash accepts; plain Redis 7 rejects it ("Unexpected flag in script shebang"),
 * so it is stripped and the stripped script's SHA is used in place of the original.
 */
import { createHash } from "node:crypto";
import type { Redis as IORedis } from "ioredis";

const SHEBANG = /^#!lua[^\n]*\n/;

export interface UpstashRedisLike {
  evalsha<TArgs extends unknown[], TData = unknown>(sha: string, keys: string[], args: TArgs): Promise<TData>;
  eval<TArgs extends unknown[], TData = unknown>(script: string, keys: string[], args: TArgs): Promise<TData>;
  get<TData = string>(key: string): Promise<TData | null>;
  set<TData = string>(key: string, value: TData): Promise<"OK" | TData | null>;
}

export function upstashAdapter(redis: IORedis): UpstashRedisLike {
  // original sha → stripped script (and its sha) once seen through eval
  const shaMap = new Map<string, string>();
  const strip = (script: string) => script.replace(SHEBANG, "");
  const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
  const str = (args: unknown[]) => args.map((a) => (typeof a === "string" ? a : JSON.stringify(a)));
  return {
    async evalsha<TArgs extends unknown[], TData>(sha: string, keys: string[], args: TArgs): Promise<TData> {
      const mapped = shaMap.get(sha) ?? sha;
      return (await redis.evalsha(mapped, keys.length, ...keys, ...str(args))) as TData;
    },
    async eval<TArgs extends unknown[], TData>(script: string, keys: string[], args: TArgs): Promise<TData> {
      const stripped = strip(script);
      shaMap.set(sha1(script), sha1(stripped));
      return (await redis.eval(stripped, keys.length, ...keys, ...str(args))) as TData;
    },
    async get<TData>(key: string): Promise<TData | null> {
      const v = await redis.get(key);
      if (v === null) return null;
      try {
        return JSON.parse(v) as TData;
      } catch {
        return v as TData;
      }
    },
    async set<TData>(key: string, value: TData): Promise<"OK" | TData | null> {
      return (await redis.set(key, typeof value === "string" ? value : JSON.stringify(value))) as "OK";
    },
  };
}
