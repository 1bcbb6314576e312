/**
 * Whether tracing is asked for: an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and the SDK is not disabled (OTEL_SDK_DISABLED).
 * Read straight from the environment by the instrumentation hook, before anything else
 * loads; lib/telemetry/otel.ts and the SDK load only when it holds.
 */
export function tracingConfigured(e: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && e.OTEL_SDK_DISABLED?.toLowerCase() !== "true";
}
