/**
 * The embedded database's own checkpoints (lib/db/checkpoints.ts): single-user PostgreSQL
 * (PGlite) never runs one, so pg_wal grew with every write; the schedule checkpoints by
 * WAL volume and by time, and pg_wal stays bounded.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECKPOINT_MS, CheckpointSchedule, lsnBytes } from "@/lib/db/checkpoints";

const MB = 1024 * 1024;
let pg: PGlite;
const segments = () => (pg.Module as unknown as { FS: { readdir(p: string): string[] } }).FS.readdir("/pglite/data/pg_wal").filter((f) => /^[0-9A-F]{24}$/.test(f)).length;
const lsn = async () => lsnBytes((await pg.query<{ l: string }>("SELECT pg_current_wal_insert_lsn()::text AS l")).rows[0]!.l);
const checkpointLsn = async () => (await pg.query<{ l: string }>("SELECT checkpoint_lsn::text AS l FROM pg_control_checkpoint()")).rows[0]!.l;
/** Writes at least `mb` MB of WAL (rows of random text, which nothing compresses). */
async function writeWal(mb: number): Promise<void> {
  const until = (await lsn()) + mb * MB;
  while ((await lsn()) < until) await pg.exec("INSERT INTO t SELECT md5(random()::text) || md5(random()::text) FROM generate_series(1, 20000)");
}

beforeAll(async () => {
  pg = new PGlite("memory://");
  await pg.waitReady;
  await pg.exec("CREATE TABLE t (body text)");
}, 60_000);
afterAll(async () => {
  await pg?.close();
});

describe("embedded checkpoints", () => {
  it("reads WAL positions in bytes", () => {
    expect(lsnBytes("0/776F940")).toBe(0x776f940);
    expect(lsnBytes("1/10")).toBe(2 ** 32 + 16);
  });

  it("stop() waits for the tick in flight, and no tick queries the database after it", async () => {
    let queries = 0;
    let inQuery = 0;
    const counted = {
      query: async <T,>(sql: string) => {
        queries++;
        inQuery++;
        try {
          return await pg.query<T>(sql);
        } finally {
          inQuery--;
        }
      },
    };
    const schedule = new CheckpointSchedule(counted, 0);
    await schedule.tick();
    await pg.exec("INSERT INTO t VALUES ('one row')");
    const ticking = schedule.tick(); // due: reads the position, checkpoints, reads it again
    await schedule.stop();
    expect(inQuery).toBe(0);
    expect(await ticking).toBe(true);
    const before = queries;
    expect(await schedule.tick()).toBe(false);
    expect(queries).toBe(before);
  });

  it("the premise: PGlite alone never checkpoints, however much WAL it writes", async () => {
    const before = await checkpointLsn();
    await writeWal(40);
    expect(await checkpointLsn()).toBe(before);
    expect(segments()).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it("checkpoints once the WAL since the last one reaches the limit, and keeps pg_wal bounded", async () => {
    const schedule = new CheckpointSchedule(pg, 16 * MB);
    expect(await schedule.tick()).toBe(false); // notes where the WAL stands
    await writeWal(4);
    expect(await schedule.tick()).toBe(false); // under the limit
    const start = await lsn();
    let most = 0;
    for (let i = 0; i < 8; i++) {
      await writeWal(17);
      const before = await checkpointLsn();
      expect(await schedule.tick()).toBe(true);
      expect(await checkpointLsn()).not.toBe(before);
      most = Math.max(most, segments());
    }
    // 136 MB of WAL went through (9 segments' worth); without checkpoints all of it stays
    // (the premise above). Counted right after each checkpoint, the most pg_wal held.
    expect((await lsn()) - start).toBeGreaterThan(8 * 17 * MB);
    expect(most).toBeLessThanOrEqual(7);
    expect(schedule.ran).toBe(8);
  }, 240_000);

  it("checkpoints after CHECKPOINT_MS if anything was written, and not when nothing was", async () => {
    const schedule = new CheckpointSchedule(pg, 1024 * MB);
    const t0 = Date.now();
    await schedule.tick(t0);
    expect(await schedule.tick(t0 + CHECKPOINT_MS)).toBe(false); // nothing written
    await pg.exec("INSERT INTO t VALUES ('one row')");
    expect(await schedule.tick(t0 + CHECKPOINT_MS - 1)).toBe(false);
    expect(await schedule.tick(t0 + CHECKPOINT_MS)).toBe(true);
    expect(await schedule.tick(t0 + 2 * CHECKPOINT_MS)).toBe(false); // nothing since
  });
});
