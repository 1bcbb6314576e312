/**
 * Work a route schedules to run after its response is sent, in the fast lane
 * (lib/server/fast-lane.ts), where no Next request scope exists for Next's `after()`.
 * The lane runs each handler inside `runWithLaneAfter`; lib/http/after-response.ts
 * (the one function route code calls) hands tasks to the lane's scheduler when there is
 * one, and to Next's `after()` otherwise.
 *
 * The storage is process-wide (lib/process-state.ts): the lane (loaded by the custom
 * server) and the route bundles hold separate copies of this module.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { processState } from "@/lib/process-state";

export type AfterTask = () => Promise<void> | void;
export type ScheduleAfter = (task: AfterTask) => void;

const storage = () => processState("http.lane-after", () => new AsyncLocalStorage<ScheduleAfter>());

/** The fast lane's scheduler of the request being handled, if the lane handles it. */
export function laneScheduler(): ScheduleAfter | undefined {
  return storage().getStore();
}

/** Runs `fn` (a route handler call) with `schedule` as the request's after-response scheduler. */
export function runWithLaneAfter<T>(schedule: ScheduleAfter, fn: () => T): T {
  return storage().run(schedule, fn);
}
