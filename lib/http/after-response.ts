/**
 * Runs work after the response is sent, in whichever server answers the request:
 * - the fast lane of `npm start` and serve.js (lib/server/fast-lane.ts): its scheduler
 *   runs the task once the response is finished and keeps the promise alive, logging a
 *   failure;
 * - Next's pipeline (`next start`, serverless platforms, the paths the lane leaves to
 *   Next): Next's `after()`, which platforms keep alive with their waitUntil;
 * - outside any request (scripts, tests): right away, in the background.
 */
import { after } from "next/server";
import { log } from "@/lib/log";
import { laneScheduler, type AfterTask } from "@/lib/http/lane-after";

/** Runs `task` after the current response is sent (see above); a failure is logged, never thrown. */
export function afterResponse(task: AfterTask, what = "after_response"): void {
  const lane = laneScheduler();
  if (lane) {
    lane(task);
    return;
  }
  try {
    after(task);
  } catch {
    // Not inside a Next request scope.
    void Promise.resolve()
      .then(task)
      .catch((err: unknown) => log.error(`${what}.failed`, { message: (err as Error).message }));
  }
}
