/**
 * The embedded database's settings (lib/db/client.ts): in memory, WAL segments are not
 * written as zeros first (each write past a file's end copies the file in memory: a
 * segment stopped the process for ~200 ms), and growing files are extended in place
 * (lib/db/memfs-growth.ts); in a folder on disk PostgreSQL's default holds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/config/env";
import { PGlite } from "@electric-sql/pglite";
import { CHECKPOINT_POLL_MS, CheckpointSchedule } from "@/lib/db/checkpoints";
import { closeDb, getDbHandle } from "@/lib/db/client";
import { GROW_IN_PLACE_FROM, installInPlaceGrowth } from "@/lib/db/memfs-growth";

const saved = { DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: process.env.LOG_LEVEL };
afterEach(async () => {
  await closeDb();
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  resetEnvForTests();
});

async function openEmbedded(dataDir: string) {
  await closeDb();
  delete process.env.DATABASE_URL;
  Object.assign(process.env, { DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  resetEnvForTests();
  const h = await getDbHandle();
  expect(h.mode).toBe("pglite");
  return h;
}

async function walInitZero(dataDir: string): Promise<string> {
  const h = await openEmbedded(dataDir);
  return (await h.query<{ wal_init_zero: string }>("SHOW wal_init_zero", []))[0]!.wal_init_zero;
}

interface FileNode {
  contents: Uint8Array;
  usedBytes: number;
}

// Each test opens an embedded database (10 s and more on 2 busy cores).
describe("embedded database settings", { timeout: 120_000 }, () => {
  it("in memory: WAL segments are not zero-filled", async () => {
    expect(await walInitZero("memory")).toBe("off");
  });

  it("the service's database checkpoints itself in both modes, and in memory grows its files in place", async () => {
    const memory = await openEmbedded("memory");
    expect(memory.growsInPlace).toBe(true);
    expect(memory.checkpoints).toBeInstanceOf(CheckpointSchedule);
    // Its timer runs: the schedule reads the WAL position every CHECKPOINT_POLL_MS (the
    // unit tests of lib/db/checkpoints.ts show what it does with what it reads).
    expect(memory.checkpoints!.polls).toBe(0);
    const opened = Date.now();
    while (memory.checkpoints!.polls < 2 && Date.now() - opened < 3 * CHECKPOINT_POLL_MS) await new Promise((r) => setTimeout(r, 100));
    expect(memory.checkpoints!.polls).toBeGreaterThanOrEqual(2);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(2 * CHECKPOINT_POLL_MS - 1000);
    const dir = mkdtempSync(join(tmpdir(), "echo-pglite-settings-"));
    try {
      const disk = await openEmbedded(dir);
      expect(disk.growsInPlace).toBeUndefined();
      expect(disk.checkpoints).toBeInstanceOf(CheckpointSchedule);
    } finally {
      await closeDb();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("in memory: a table's file past 1 MB keeps one buffer as it grows (no whole-file copy), and every row reads back", async () => {
    const pg = new PGlite("memory://");
    try {
      await pg.waitReady;
      const fs = (pg.Module as unknown as { FS: { lookupPath(p: string): { node: FileNode } } }).FS;
      expect(installInPlaceGrowth(fs)).toBe(true);
      expect(installInPlaceGrowth(fs)).toBe(true); // a second call keeps the one policy
      await pg.exec("CREATE TABLE t (id int PRIMARY KEY, body text)");
      const file = (await pg.query<{ p: string }>("SELECT pg_relation_filepath('t') AS p")).rows[0]!.p;
      const body = "x".repeat(1800); // under the TOAST threshold: the rows stay in the table's own file
      let id = 0;
      const insert = async (n: number) => {
        for (let i = 0; i < n; i++) await pg.query("INSERT INTO t VALUES ($1, $2)", [id++, `${id}:${body}`]);
        await pg.exec("CHECKPOINT"); // the pages reach the file
      };
      await insert(1000); // ~2 MB
      const node = () => fs.lookupPath(`/pglite/data/${file}`).node;
      const first = node();
      expect(first.usedBytes).toBeGreaterThan(GROW_IN_PLACE_FROM);
      const buffer = first.contents.buffer as ArrayBuffer & { resizable?: boolean };
      expect(buffer.resizable).toBe(true);
      const usedBefore = first.usedBytes;
      await insert(3000); // ~6 MB more: several growths
      expect(node().usedBytes).toBeGreaterThan(usedBefore + 4 * GROW_IN_PLACE_FROM);
      expect(node().contents.buffer).toBe(buffer);
      // No more than MEMFS's own 12.5% of spare room (or 1 MB).
      expect(node().contents.length).toBeLessThanOrEqual(Math.max(node().usedBytes * 1.125, node().usedBytes + GROW_IN_PLACE_FROM) + 8192);
      const [check] = (await pg.query<{ n: number; ok: number }>("SELECT count(*)::int AS n, count(*) FILTER (WHERE body = id + 1 || ':' || $1)::int AS ok FROM t", [body])).rows;
      expect(check).toEqual({ n: 4000, ok: 4000 });
    } finally {
      await pg.close();
    }
  }, 120_000);

  it("in memory: truncating and extending a grown file stay in place and read as MEMFS's would (zeros past the old end); a file cut to a small size gives its memory back", async () => {
    const pg = new PGlite("memory://");
    try {
      await pg.waitReady;
      interface Fs {
        lookupPath(p: string): { node: FileNode };
        open(p: string, flags: string): unknown;
        write(s: unknown, b: Uint8Array, off: number, len: number, pos: number): number;
        close(s: unknown): void;
        truncate(p: string, len: number): void;
        readFile(p: string): Uint8Array;
      }
      const fs = (pg.Module as unknown as { FS: Fs }).FS;
      expect(installInPlaceGrowth(fs)).toBe(true);
      const path = "/pglite/data/growth-probe";
      const MB = 1024 * 1024;
      const chunk = new Uint8Array(256 * 1024).fill(7);
      const stream = fs.open(path, "w+");
      for (let pos = 0; pos < 3 * MB; pos += chunk.length) fs.write(stream, chunk, 0, chunk.length, pos);
      fs.close(stream);
      const node = fs.lookupPath(path).node;
      const buffer = node.contents.buffer as ArrayBuffer & { resizable?: boolean };
      expect(buffer.resizable).toBe(true);
      // Cut (VACUUM's truncation) and extended again (a truncate upwards, as fallocate is).
      fs.truncate(path, 2 * MB);
      expect(node.usedBytes).toBe(2 * MB);
      fs.truncate(path, 5 * MB);
      expect(node.contents.buffer).toBe(buffer);
      const data = fs.readFile(path);
      expect(data.length).toBe(5 * MB);
      expect(data.subarray(0, 2 * MB).every((b) => b === 7)).toBe(true);
      expect(data.subarray(2 * MB).every((b) => b === 0)).toBe(true);
      // Cut to a small size: a plain array of that size (MEMFS's own), the rest given back.
      fs.truncate(path, 4096);
      expect((node.contents.buffer as ArrayBuffer & { resizable?: boolean }).resizable).toBe(false);
      expect(node.contents.length).toBe(4096);
      expect(fs.readFile(path).every((b) => b === 7)).toBe(true);
    } finally {
      await pg.close();
    }
  }, 120_000);

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
