/**
 * The embedded database's settings (lib/db/client.ts): in memory, WAL segments are not
 * written as zeros first (each write past a file's end copies the file in memory: a
 * segment stopped the process for ~200 ms); in a folder on disk PostgreSQL's default holds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/config/env";
import { closeDb, getDbHandle } from "@/lib/db/client";

const saved = { DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: process.env.LOG_LEVEL };
afterEach(async () => {
  await closeDb();
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  resetEnvForTests();
});

async function walInitZero(dataDir: string): Promise<string> {
  await closeDb();
  delete process.env.DATABASE_URL;
  Object.assign(process.env, { DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  resetEnvForTests();
  const h = await getDbHandle();
  expect(h.mode).toBe("pglite");
  return (await h.query<{ wal_init_zero: string }>("SHOW wal_init_zero", []))[0]!.wal_init_zero;
}

describe("embedded database settings", () => {
  it("in memory: WAL segments are not zero-filled", async () => {
    expect(await walInitZero("memory")).toBe("off");
  });

  it("in a folder on disk: PostgreSQL's default (zero-filled segments)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "echo-pglite-settings-"));
    try {
      expect(await walInitZero(dir)).toBe("on");
    } finally {
      await closeDb();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
