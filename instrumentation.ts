// Runs once in every server process before it serves (Next's instrumentation hook): the
// custom server, plain `next start`, the standalone server and serverless functions.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { installVaryAccept } = await import("@/lib/server/vary-accept");
    installVaryAccept();
  }
}
