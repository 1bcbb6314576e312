import type { SpawnSyncReturns } from "node:child_process";
export function prisma(args: string[], opts?: { cwd?: string; stdio?: "inherit" | "pipe"; config?: boolean }): SpawnSyncReturns<string>;
