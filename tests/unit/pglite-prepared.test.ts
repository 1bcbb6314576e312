/**
 * lib/db/pglite-prepared.ts: statements on the embedded database prepared once and run in
 * one round trip must answer exactly what PGlite's own query() answers (rows, types,
 * errors), hold the same locks (never run inside another caller's open transaction), and
 * really be prepared (pg_prepared_statements lists them).
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preparedQuery } from "@/lib/db/pglite-prepared";

let pg: PGlite;
let q: ReturnType<typeof preparedQuery>;

beforeAll(async () => {
  pg = new PGlite("memory://");
  await pg.waitReady;
  await pg.exec(`CREATE TABLE t (id text PRIMARY KEY, n int NOT NULL, big bigint, amount numeric, tags text[], meta jsonb, at timestamptz, ok boolean, raw bytea)`);
  q = preparedQuery(pg);
});
afterAll(async () => {
  await pg.close();
});

const prepared = async () => (await pg.query<{ name: string; statement: string }>("SELECT name, statement FROM pg_prepared_statements ORDER BY name")).rows;

describe("preparedQuery (PGlite)", () => {
  it("answers the rows query() answers, type for type", async () => {
    const insert = `INSERT INTO t (id, n, big, amount, tags, meta, at, ok, raw) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`;
    const row = ["a", 7, 9007199254740993n, "12.345", ["x", 'quote"d', "back\\slash", "comma,", "{brace}", ""], { k: [1, "two", null], "é": "ü" }, new Date("2026-11-27T10:00:00.123Z"), true, new Uint8Array([0, 1, 255])];
    const mine = await q(insert, row);
    const theirs = (await pg.query(insert, ["b", ...row.slice(1)])).rows;
    expect(mine).toEqual([{ ...(theirs[0] as object), id: "a" }]);
    const select = `SELECT id, n, big, amount, tags, meta, at, ok, raw, n::float8 / 3 AS third, NULL::text AS nothing FROM t WHERE id = ANY($1::text[]) ORDER BY id`;
    expect(await q(select, [["a", "b"]])).toEqual((await pg.query(select, [["a", "b"]])).rows);
  });

  it("sends bytes as a binary parameter: a text parameter takes them as UTF-8 text", async () => {
    const value = 'quote" back\\slash é 漢字 🦊';
    expect(await q(`SELECT $1::text AS v, length($1::text) AS n`, [Buffer.from(value)])).toEqual([{ v: value, n: [...value].length }]);
  });

  it("answers no rows for a statement without RETURNING, and nulls as null", async () => {
    expect(await q(`INSERT INTO t (id, n, big) VALUES ($1, $2, $3)`, ["c", 1, null])).toEqual([]);
    expect(await q(`SELECT big FROM t WHERE id = $1`, ["c"])).toEqual([{ big: null }]);
    expect(await q(`SELECT big FROM t WHERE id = $1`, ["nobody"])).toEqual([]);
  });

  it("prepares each text once, under the caller's name or one of its own", async () => {
    await q(`SELECT $1::int + 1 AS v`, [1], "plus_one");
    await q(`SELECT $1::int + 1 AS v`, [2], "plus_one");
    const rows = await prepared();
    expect(rows.filter((r) => r.statement === "SELECT $1::int + 1 AS v").map((r) => r.name)).toEqual(["plus_one"]);
    // Every text above has exactly one statement, named pglite_q<n> when the caller gave none.
    const texts = rows.map((r) => r.statement);
    expect(new Set(texts).size).toBe(texts.length);
    expect(rows.some((r) => r.name.startsWith("pglite_q") && r.statement.startsWith("INSERT INTO t (id, n, big, amount"))).toBe(true);
  });

  it("throws PostgreSQL's error (code and message), and the session goes on", async () => {
    const dup = q(`INSERT INTO t (id, n) VALUES ($1, $2)`, ["a", 1]);
    await expect(dup).rejects.toMatchObject({ code: "23505", message: expect.stringContaining("duplicate key") });
    await expect(q(`SELECT 1 / $1::int AS v`, [0])).rejects.toMatchObject({ code: "22012" });
    await expect(q(`SELECT nonsense(`, [])).rejects.toMatchObject({ code: "42601" });
    expect(await q(`SELECT 1 / $1::int AS v`, [1])).toEqual([{ v: 1 }]);
    // The text that failed to parse was not kept: nothing names it.
    expect((await prepared()).some((r) => r.statement.includes("nonsense"))).toBe(false);
    expect((await pg.query<{ n: number }>("SELECT 2 AS n")).rows).toEqual([{ n: 2 }]);
  });

  it("refuses a name already given to another text", async () => {
    await q(`SELECT 1 AS one`, [], "named_once");
    await expect(q(`SELECT 2 AS two`, [], "named_once")).rejects.toThrow(/already used for another SQL text/);
  });

  it("never runs inside another caller's open transaction", async () => {
    let inside!: () => void;
    const opened = new Promise<void>((r) => (inside = r));
    const tx = pg
      .transaction(async (t) => {
        await t.query(`INSERT INTO t (id, n) VALUES ('in-tx', 1)`);
        inside();
        await new Promise((r) => setTimeout(r, 50));
        await t.rollback();
      })
      .catch(() => undefined);
    await opened;
    // Issued while the transaction is open: it must wait for it, not join it (the rollback would undo it).
    const mine = q(`INSERT INTO t (id, n) VALUES ($1, $2) RETURNING id`, ["outside-tx", 2]);
    await Promise.all([tx, mine]);
    expect(await q(`SELECT id FROM t WHERE id = ANY($1::text[]) ORDER BY id`, [["in-tx", "outside-tx"]])).toEqual([{ id: "outside-tx" }]);
  });

  it("prepares again a statement the session lost", async () => {
    expect(await q(`SELECT $1::text || '!' AS s`, ["hi"])).toEqual([{ s: "hi!" }]);
    await pg.exec("DEALLOCATE ALL");
    expect(await q(`SELECT $1::text || '!' AS s`, ["again"])).toEqual([{ s: "again!" }]);
  });

  it("beyond its bound, runs new texts through query() without preparing them", async () => {
    const small = new PGlite("memory://");
    try {
      const q2 = preparedQuery(small, 2);
      expect(await q2(`SELECT 1 AS a`, [])).toEqual([{ a: 1 }]);
      expect(await q2(`SELECT 2 AS b`, [])).toEqual([{ b: 2 }]);
      expect(await q2(`SELECT $1::int AS c`, [3])).toEqual([{ c: 3 }]);
      expect(await q2(`SELECT 1 AS a`, [])).toEqual([{ a: 1 }]);
      const names = (await small.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements ORDER BY statement")).rows.map((r) => r.statement);
      expect(names).toEqual(["SELECT 1 AS a", "SELECT 2 AS b"]);
    } finally {
      await small.close();
    }
  });
});
