/**
 * Process-wide state, the one way modules hold it. Next bundles a module once per route
 * and the custom server (lib/server) loads its own copy, so a module-level `let` would
 * exist several times in one process; state therefore lives on globalThis under a
 * registered symbol, created on first use (never at import time: `next build` imports
 * every module).
 */
const PREFIX = "echo.";

type Holder = Record<symbol, unknown>;

/** The process-wide value named `name`, created by `init` on first use. */
export function processState<T>(name: string, init: () => T): T {
  const g = globalThis as Holder;
  const key = Symbol.for(PREFIX + name);
  if (!(key in g)) g[key] = init();
  return g[key] as T;
}

/** The value named `name` if it exists, without creating it. */
export function peekProcessState<T>(name: string): T | undefined {
  return (globalThis as Holder)[Symbol.for(PREFIX + name)] as T | undefined;
}

/** Forget the value named `name` (tests change the environment; failed initialisations retry). */
export function resetProcessState(name: string): void {
  delete (globalThis as Holder)[Symbol.for(PREFIX + name)];
}
