/**
 * lib/http/after-response.ts, the one function route code calls to run work after the
 * response: inside the fast lane it hands the task to the lane's scheduler (which runs it
 * when the response is finished), outside any request it runs the task in the background
 * and logs a failure instead of throwing.
 */
import { describe, expect, it, vi } from "vitest";
import { afterResponse } from "@/lib/http/after-response";
import { runWithLaneAfter, type AfterTask } from "@/lib/http/lane-after";

describe("afterResponse", () => {
  it("inside the lane: the task goes to the lane's scheduler and does not run before it", async () => {
    const queued: AfterTask[] = [];
    const task = vi.fn(async () => undefined);
    await runWithLaneAfter((t) => queued.push(t), async () => {
      await Promise.resolve();
      afterResponse(task);
    });
    expect(queued).toEqual([task]);
    expect(task).not.toHaveBeenCalled();
  });

  it("outside any request: the task runs in the background; a failure is logged, not thrown", async () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const ran = vi.fn();
      afterResponse(async () => {
        ran();
        throw new Error("boom");
      }, "test_task");
      await vi.waitFor(() => expect(write.mock.calls.map((c) => String(c[0])).join("")).toContain('"event":"test_task.failed"'));
      expect(ran).toHaveBeenCalledOnce();
    } finally {
      write.mockRestore();
    }
  });
});
