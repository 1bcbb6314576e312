/**
 * Checkpoints of the embedded database. PostgreSQL's checkpointer writes the dirty pages
 * out and recycles the WAL behind them every `max_wal_size` of WAL or `checkpoint_timeout`.
 * PGlite runs PostgreSQL in single-user mode, where nothing ever requests one (XLogWrite
 * asks only under a postmaster), so without this the WAL was never recycled: measured,
 * 60 000 inserts left 7 segments (112 MB) in pg_wal and `pg_stat_checkpointer` at zero,
 * with max_wal_size at 1 GB or at 64 MB alike. So pg_wal grew with every write the
 * process ever made: on disk under DATA_DIR, and in memory for DATA_DIR=memory, about
 * 5 MB/s under A2A load. A crash then replayed the whole history at the next start.
 *
 * Here the instance checkpoints itself, as the checkpointer would: when
 * CHECKPOINT_WAL_BYTES of WAL were written since the last one, or CHECKPOINT_MS after it
 * if anything was written at all. PostgreSQL then keeps a few segments to recycle
 * (min_wal_size) and removes the rest, so pg_wal stays bounded, and a recycled segment's
 * memory is reused instead of allocated anew.
 */
/** WAL written since the last checkpoint that makes the next one due. */
export const CHECKPOINT_WAL_BYTES = 128 * 1024 * 1024;
/** Longest time between checkpoints while anything is written (PostgreSQL's checkpoint_timeout). */
export const CHECKPOINT_MS = 5 * 60_000;
/** How often the WAL position is read to see whether a checkpoint is due. */
export const CHECKPOINT_POLL_MS = 5_000;

export interface SqlQuery {
  query<T>(sql: string): Promise<{ rows: T[] }>;
}

/** A WAL position (`X/Y`, two hex halves) in bytes. */
export function lsnBytes(lsn: string): number {
  const [hi, lo] = lsn.split("/");
  return Number.parseInt(hi!, 16) * 2 ** 32 + Number.parseInt(lo!, 16);
}

export class CheckpointSchedule {
  private last?: { at: number; lsn: number };
  private inFlight?: Promise<boolean>;
  private stopped = false;
  /** Checkpoints this schedule ran. */
  ran = 0;
  /** Ticks that read the WAL position (a tick skipped while another runs, or after stop(), reads nothing). */
  polls = 0;

  constructor(
    private readonly db: SqlQuery,
    private readonly walBytes = CHECKPOINT_WAL_BYTES,
    private readonly maxMs = CHECKPOINT_MS,
  ) {}

  private async lsn(): Promise<number> {
    const [row] = (await this.db.query<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn")).rows;
    return lsnBytes(row!.lsn);
  }

  /** Checkpoints when one is due (see above); the first call only notes where the WAL stands. Returns whether it checkpointed. */
  async tick(now = Date.now()): Promise<boolean> {
    // A slow checkpoint outlasting the poll interval, or a database being closed.
    if (this.inFlight || this.stopped) return false;
    this.inFlight = this.due(now);
    try {
      return await this.inFlight;
    } finally {
      this.inFlight = undefined;
    }
  }

  /** No tick after this; resolves once the one in flight (if any) has ended, so the database can be closed under it. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.inFlight?.catch(() => undefined);
  }

  private async due(now: number): Promise<boolean> {
    const lsn = await this.lsn();
    this.polls++;
    if (!this.last) {
      this.last = { at: now, lsn };
      return false;
    }
    const written = lsn - this.last.lsn;
    if (written <= 0 || (written < this.walBytes && now - this.last.at < this.maxMs)) return false;
    await this.db.query("CHECKPOINT");
    this.ran++;
    // The checkpoint's own record moved the position: what follows it is what counts next.
    this.last = { at: now, lsn: await this.lsn() };
    return true;
  }
}
