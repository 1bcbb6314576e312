/**
 * Statements on the embedded database (PGlite) as PostgreSQL's own clients run them:
 * prepared once under a name, then one round trip per call.
 *
 * PGlite's `query()` sends each step of the extended protocol as its own call into the
 * WebAssembly instance (Parse, Describe statement, Bind, Describe portal, Execute, Sync:
 * six), and parses and plans the SQL on every call. On the paths every call takes (the
 * key's quota, a bundle credit, a payment's lock and record, an A2A task) that was most of
 * the statement's cost: `SELECT 1` 180 µs, a task insert 500 µs, on this machine. Here the
 * SQL is parsed once (Parse under a name and Describe, one call), and each call sends
 * Bind, Describe portal, Execute and Sync as one message (75 µs and 240 µs).
 *
 * Same answers as `query()`: the parameters serialized by the handle's serializers for the
 * types PostgreSQL gave the statement's parameters, the rows parsed by PGlite's own result
 * parser, a statement error thrown as PGlite's DatabaseError (its `code` and message; the
 * Sync in the same message leaves the session idle). Same exclusion: the handle's
 * transaction and query locks are held, so a statement never runs inside a transaction
 * another caller (Prisma's interactive transactions) has open.
 *
 * Names are given per SQL text (the caller's, or `pglite_q<n>` otherwise); a name is kept for the
 * handle's life, up to MAX_PREPARED texts, beyond which a text runs through `query()`
 * (SQL built at run time must not grow the session without bound). A name reused for
 * another text is refused, as node-postgres refuses it.
 */
import { parse, protocol, type PGlite } from "@electric-sql/pglite";

/** Most SQL texts kept prepared per handle (the service has a few dozen). */
export const MAX_PREPARED = 256;
/** PostgreSQL's SQLSTATE for a prepared statement that does not exist (the session lost it). */
const INVALID_SQL_STATEMENT_NAME = "26000";

interface Prepared {
  name: string;
  text: string;
  paramTypes: number[];
}

function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A query function over `pg` that prepares each SQL text once (see above). */
export function preparedQuery(pg: PGlite, maxPrepared = MAX_PREPARED) {
  const { serialize } = protocol;
  const byText = new Map<string, Prepared>();
  const names = new Map<string, string>();
  let next = 0;

  const prepare = async (text: string, name: string): Promise<Prepared> => {
    const r = await pg.execProtocol(concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]), { syncToFs: false });
    const p: Prepared = { name, text, paramTypes: parse.parseDescribeStatementResults(r.messages) };
    byText.set(text, p);
    names.set(name, text);
    return p;
  };

  const run = async <T>(p: Prepared, params: unknown[]): Promise<T[]> => {
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      // Bytes go as they are, as a binary parameter (node-postgres sends a Buffer so too).
      if (v instanceof Uint8Array) return v;
      const s = pg.serializers[p.paramTypes[i]!];
      return s ? s(v) : String(v);
    });
    const msg = concat([serialize.bind({ statement: p.name, values }), serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()]);
    const r = await pg.execProtocol(msg, { syncToFs: false });
    return (parse.parseResults(r.messages, pg.parsers)[0]?.rows ?? []) as T[];
  };

  return async function query<T>(text: string, params: unknown[], name?: string): Promise<T[]> {
    let p = byText.get(text);
    // PGlite's start-up takes the same locks (outside them, before the first statement).
    if (!p) await pg.waitReady;
    if (!p && byText.size >= maxPrepared) return (await pg.query<T>(text, params)).rows;
    if (name !== undefined && names.has(name) && names.get(name) !== text) {
      throw new Error(`statement name "${name}" is already used for another SQL text (names are unique per text)`);
    }
    return pg._runExclusiveTransaction(() =>
      pg._runExclusiveQuery(async () => {
        p ??= byText.get(text) ?? (await prepare(text, name ?? `pglite_q${next++}`));
        let rows: T[];
        try {
          rows = await run<T>(p, params);
        } catch (err) {
          // The session lost the statement (DEALLOCATE ALL, DISCARD ALL): prepare it again, once.
          if ((err as { code?: string }).code !== INVALID_SQL_STATEMENT_NAME) throw err;
          byText.delete(text);
          names.delete(p.name);
          p = await prepare(text, p.name);
          rows = await run<T>(p, params);
        }
        // What query() does after a statement outside a transaction (a no-op on the in-memory and Node file systems).
        await pg.syncToFs();
        return rows;
      }),
    );
  };
}
