/** The confirmed-mode wait learns the block rhythm and looks just before each block is due. */
import { describe, expect, it } from "vitest";
import { awaitInclusion, BlockClock } from "@/lib/payments/x402/inclusion";

describe("BlockClock", () => {
  it("looks often until the rhythm is known, then sleeps until shortly before the next block", () => {
    const c = new BlockClock();
    expect(c.nextLookIn(0)).toBeLessThanOrEqual(25);
    // Fine looks every 20 ms; a block every 200 ms.
    for (let t = 0; t <= 1000; t += 20) c.observe(Math.floor(t / 200), t);
    expect(c.interval).toBeGreaterThan(180);
    expect(c.interval).toBeLessThan(220);
    // Just after block 5 (seen at 1000 ms): sleep until ~30 ms before 1200 ms.
    const wait = c.nextLookIn(1005);
    expect(wait).toBeGreaterThan(140);
    expect(wait).toBeLessThan(175);
    // A late block: keep looking every 20 ms.
    expect(c.nextLookIn(1250)).toBe(20);
  });

  it("catches up when the chain gets faster than the rhythm it learned: missed blocks shorten the wait at once", async () => {
    const c = new BlockClock();
    for (let t = 0; t <= 10_000; t += 20) c.observe(Math.floor(t / 2000), t); // 2 s blocks
    expect(c.interval).toBeGreaterThan(1900);
    // Now a block every 200 ms, looked at only when the stale rhythm says a block is due.
    let now = 10_000;
    const head = () => 5 + Math.floor((now - 10_000) / 200);
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      const wait = c.nextLookIn(now);
      waits.push(wait);
      now += wait;
      c.observe(head(), now);
    }
    expect(waits[0]).toBeGreaterThan(1500);
    // After the first look past the missed blocks, no wait is longer than a fast block.
    expect(Math.max(...waits.slice(2))).toBeLessThanOrEqual(200);
    expect(c.interval).toBeLessThan(260);
  });

  it("awaitInclusion returns the receipt and times out as an unknown outcome", async () => {
    const c = new BlockClock();
    let looks = 0;
    const got = await awaitInclusion(c, async () => ({ receipt: ++looks >= 3 ? "r" : null, head: looks }), 1000);
    expect(got).toBe("r");
    await expect(awaitInclusion(new BlockClock(), async () => ({ receipt: null, head: 1 }), 100)).rejects.toMatchObject({ name: "TimeoutError" });
  });
});
