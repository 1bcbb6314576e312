/**
 * Structured JSON-line logging. Callers pass fields, never raw credentials: any field
 * whose name looks like a secret is redacted before it is written.
 */
// "notice" (life-cycle lines such as server.ready) prints at every level but silent.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, notice: 50, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;
const SECRET = /token|key|secret|payment|signature|authorization|password/i;

function threshold(): number {
  const raw = (process.env.LOG_LEVEL ?? "info") as keyof typeof LEVELS;
  return LEVELS[raw] ?? LEVELS.info;
}

function write(level: Level, event: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] < threshold()) return;
  const safe: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields ?? {})) safe[k] = SECRET.test(k) ? "[redacted]" : v;
  const line = JSON.stringify({ ts: new Date().toISOString(), level, event, ...safe });
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(line + "\n");
}

export const log = {
  debug: (event: string, fields?: Record<string, unknown>) => write("debug", event, fields),
  info: (event: string, fields?: Record<string, unknown>) => write("info", event, fields),
  warn: (event: string, fields?: Record<string, unknown>) => write("warn", event, fields),
  error: (event: string, fields?: Record<string, unknown>) => write("error", event, fields),
  notice: (event: string, fields?: Record<string, unknown>) => write("notice", event, fields),
};
