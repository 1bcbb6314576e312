/** The confirmed-mode wait learns the block rhythm and looks just before each block is due; one watcher looks for every waiting transaction. */
import { describe, expect, it } from "vitest";
import { BlockClock, InclusionWatcher } from "@/lib/payments/x402/inclusion";

/** Looks every `step` ms from `from` until the head passes `until`; returns the time of the last look. */
function lookUntil(c: BlockClock, head: (t: number) => number, from: number, until: number, step: number): number {
  let t = from;
  for (; head(t) <= until; t += step) c.observe(head(t), t);
  c.observe(head(t), t);
  return t;
}

describe("BlockClock", () => {
  it("looks often until the rhythm is known, then sleeps until shortly before the next block", () => {
    const c = new BlockClock();
    expect(c.nextLookIn(0)).toBeLessThanOrEqual(25);
    // Fine looks every 20 ms; a block every 200 ms.
    for (let t = 0; t <= 1000; t += 20) c.observe(Math.floor(t / 200), t);
    expect(c.interval).toBeGreaterThan(190);
    expect(c.interval).toBeLessThan(210);
    // Just after block 5 (seen at 1000 ms): sleep until ~25-30 ms before 1200 ms.
    const wait = c.nextLookIn(1005);
    expect(wait).toBeGreaterThan(160);
    expect(wait).toBeLessThan(172);
    // A late block: keep looking every few milliseconds.
    expect(c.nextLookIn(1250)).toBeLessThanOrEqual(10);
  });

  it("learns the rhythm from waits that each see a single block appear (the usual settlement), not only from consecutive ones", () => {
    const c = new BlockClock();
    const head = (t: number) => Math.floor((t - 7) / 200); // a block at 7, 207, 407, ... ms
    // Each wait starts long after the previous one and looks until the next block appears.
    let t = lookUntil(c, head, 1000, head(1000), 12);
    t = lookUntil(c, head, 3050, head(3050), 12);
    expect(t).toBeGreaterThanOrEqual(3207);
    expect(t).toBeLessThan(3207 + 12);
    expect(c.interval).toBeGreaterThan(195);
    expect(c.interval).toBeLessThan(205);
    // The next wait, started mid-block, sleeps until shortly before 3407 instead of looking all along.
    const wait = c.nextLookIn(3260);
    expect(3260 + wait).toBeGreaterThan(3407 - 40);
    expect(3260 + wait).toBeLessThan(3407);
  });

  it("starts looking earlier the older the block it dates the rhythm from", () => {
    const c = new BlockClock();
    const head = (t: number) => Math.floor(t / 200);
    lookUntil(c, head, 0, 3, 12);
    const fresh = 800 - (c.nextLookIn(805) + 805); // lead before block 4
    // Twenty blocks later a wait sees the head with a coarse look (not dated accurately).
    c.observe(head(4_850), 4_850);
    const old = 5_000 - (c.nextLookIn(4_855) + 4_855); // lead before block 25
    expect(fresh).toBeLessThan(30);
    expect(old).toBeGreaterThan(fresh + 30);
    expect(old).toBeLessThanOrEqual(25 + 100);
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

  it("a patient wait looks shortly after a block is due, and every 100 ms while the rhythm is unknown", () => {
    const c = new BlockClock();
    expect(c.patientLookIn(0)).toBe(100);
    for (let t = 0; t <= 1000; t += 20) c.observe(Math.floor(t / 200), t);
    const at = 1005 + c.patientLookIn(1005);
    expect(at).toBeGreaterThan(1200);
    expect(at).toBeLessThanOrEqual(1240);
  });
});

describe("InclusionWatcher", () => {
  it("returns each receipt; one look serves every waiting transaction; a wait past its timeout is an unknown outcome", async () => {
    let looks = 0;
    const asked: string[][] = [];
    const w = new InclusionWatcher<string>(new BlockClock(), async (hashes) => {
      looks++;
      asked.push(hashes);
      return { head: looks, receipts: hashes.map((h) => (looks >= 3 && h !== "0xnever" ? `receipt of ${h}` : null)) };
    });
    const [a, b] = await Promise.all([w.wait("0xA", 2000), w.wait("0xb", 2000)]);
    expect([a, b]).toEqual(["receipt of 0xa", "receipt of 0xb"]);
    expect(looks).toBe(3);
    expect(asked.every((h) => h.length === 2)).toBe(true);
    await expect(w.wait("0xnever", 100)).rejects.toMatchObject({ name: "TimeoutError" });
  });

  it("a look the node does not answer ends the waits it was for; a refused receipt request ends that one only", async () => {
    let n = 0;
    const w = new InclusionWatcher<string>(new BlockClock(), async (hashes) => {
      if (++n === 1) throw Object.assign(new Error("no answer"), { name: "TimeoutError" });
      return { head: n, receipts: hashes.map((h) => (h === "0xbad" ? new Error("refused") : "ok")) };
    });
    await expect(w.wait("0x1", 2000)).rejects.toThrow("no answer");
    await expect(w.wait("0xbad", 2000)).rejects.toThrow("refused");
    expect(await w.wait("0x2", 2000)).toBe("ok");
  });

  it("a patient wait alone looks every 100 ms while the rhythm is unknown; an urgent one joining it is looked for at once", async () => {
    const times: number[] = [];
    let done = false;
    const w = new InclusionWatcher<string>(new BlockClock(), async (hashes) => {
      times.push(Date.now());
      return { head: 1, receipts: hashes.map((h) => (h === "0xurgent" || done ? "r" : null)) };
    });
    const patient = w.wait("0xpatient", 5000, false);
    await new Promise((r) => setTimeout(r, 350));
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(times.length).toBeLessThanOrEqual(4);
    const t0 = Date.now();
    expect(await w.wait("0xurgent", 5000)).toBe("r");
    expect(Date.now() - t0).toBeLessThan(60);
    done = true;
    expect(await patient).toBe("r");
  });
});
