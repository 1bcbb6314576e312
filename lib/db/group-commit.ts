/**
 * Group commit: calls that arrive while a statement is running wait for it and are then
 * settled together by the next statement. A lone call runs at once (no timer, no added
 * latency); under load, one statement settles many calls, which is what lets a single
 * database (PGlite in-process, or one PostgreSQL primary) keep up with the request rate.
 */
export function groupCommit<I, O>(run: (items: I[]) => Promise<O[]>, maxBatch = 256): (item: I) => Promise<O> {
  let queue: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  let running = false;
  const drain = async () => {
    if (running) return;
    running = true;
    try {
      while (queue.length) {
        // One event-loop turn lets calls from requests parsed in the same turn join.
        await new Promise((r) => setImmediate(r));
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        try {
          const out = await run(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(out[i]!));
        } catch (err) {
          batch.forEach((b) => b.reject(err));
        }
      }
    } finally {
      running = false;
    }
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      void drain();
    });
}
