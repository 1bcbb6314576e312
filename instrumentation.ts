// Runs once in every server process before it serves (Next's instrumentation hook): the
// custom server, plain `next start`, the standalone server and serverless functions.
// Tracing (lib/telemetry/otel.ts) is loaded only when an OTLP endpoint is configured.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { installVaryAccept } = await import("@/lib/server/vary-accept");
    installVaryAccept();
    const { tracingConfigured } = await import("@/lib/telemetry/configured");
    if (tracingConfigured()) {
      const { startTracing } = await import("@/lib/telemetry/otel");
      startTracing();
    }
  }
}
