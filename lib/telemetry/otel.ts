/**
 * OpenTelemetry tracing, started by the instrumentation hook (instrumentation.ts) only
 * when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT, or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): this module and the SDK are never loaded
 * otherwise.
 *
 * A NodeTracerProvider registered globally (async-local context, W3C trace context and
 * baggage propagation) batches spans to the OTLP/HTTP exporter, which reads the standard
 * OTEL_EXPORTER_OTLP_* settings itself (headers, timeout, compression) and the batch
 * processor OTEL_BSP_*. Next.js sees the registered provider and opens its own span per
 * request (continuing an incoming `traceparent`); the call path's spans
 * (lib/telemetry/spans.ts) open under it.
 */
import { SpanStatusCode, trace } from "@opentelemetry/api";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { MCP_SERVER_INFO } from "@/lib/mcp/info";
import { processState } from "@/lib/process-state";
import { log } from "@/lib/log";
import { TRACER_STATE, type CallTracer } from "@/lib/telemetry/spans";

function start(): CallTracer {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, when set, win over the defaults.
  const resource = resourceFromAttributes({ "service.name": MCP_SERVER_INFO.name, "service.version": MCP_SERVER_INFO.version }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  // Spans still in the batch go out when the process is asked to stop (best effort: the
  // servers exit shortly after).
  const flush = () => void provider.forceFlush().catch(() => undefined);
  process.once("SIGTERM", flush);
  process.once("SIGINT", flush);
  log.info("telemetry.tracing", { exporter: "otlp-http", service: resource.attributes["service.name"] });

  const tracer = trace.getTracer(MCP_SERVER_INFO.name, MCP_SERVER_INFO.version);
  return {
    span: (name, attributes, fn) =>
      tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          const r = await fn();
          if (r.attributes) span.setAttributes(r.attributes);
          if (r.error) span.setStatus({ code: SpanStatusCode.ERROR, message: r.error });
          return r.value;
        } catch (err) {
          // A refusal (402/429) is an answer, not a failure of the service; the code says which.
          const e = err as { name?: string; code?: unknown; status?: unknown };
          if (typeof e.code === "string") span.setAttribute("echo.error.code", e.code);
          if (typeof e.status !== "number" || e.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: e.name ?? "Error" });
          throw err;
        } finally {
          span.end();
        }
      }),
  };
}

/** Starts tracing once per process (the custom server and Next may both run the hook). */
export function startTracing(): void {
  processState(TRACER_STATE, start);
}
