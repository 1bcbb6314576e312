/** The group-commit batcher: a lone call runs at once; concurrent calls share statements. */
import { describe, expect, it } from "vitest";
import { groupCommit } from "@/lib/db/group-commit";

describe("groupCommit", () => {
  it("runs a lone call on its own, settles calls made in the same turn or during a statement together, keeps order", async () => {
    const batches: number[][] = [];
    const run = groupCommit(async (items: number[]) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 20));
      return items.map((i) => i * 10);
    });
    expect(await run(1)).toBe(10);
    expect(batches).toEqual([[1]]);
    const results = await Promise.all([2, 3, 4, 5, 6].map((i) => run(i)));
    expect(results).toEqual([20, 30, 40, 50, 60]);
    // Made in the same turn: one statement for all five.
    expect(batches.slice(1)).toEqual([[2, 3, 4, 5, 6]]);
    // Calls made while a statement runs wait for it and share the next one.
    const first = run(7);
    await new Promise((r) => setTimeout(r, 5));
    const later = await Promise.all([run(8), run(9)]);
    expect([await first, ...later]).toEqual([70, 80, 90]);
    expect(batches.slice(2)).toEqual([[7], [8, 9]]);
  });

  it("rejects every call of a failed batch and keeps serving later ones", async () => {
    let fail = true;
    const run = groupCommit(async (items: string[]) => {
      if (fail) throw new Error("db down");
      return items.map((s) => s.toUpperCase());
    });
    await expect(run("a")).rejects.toThrow("db down");
    fail = false;
    expect(await run("b")).toBe("B");
  });

  it("caps the batch size", async () => {
    const sizes: number[] = [];
    const run = groupCommit(async (items: number[]) => {
      sizes.push(items.length);
      await new Promise((r) => setTimeout(r, 5));
      return items;
    }, 3);
    await Promise.all(Array.from({ length: 10 }, (_, i) => run(i)));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10);
  });
});
