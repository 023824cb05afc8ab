/**
 * the OpenTelemetry SDK's LoggerProvider with a
 * BatchLogRecordProcessor and the Stowage exporter, writing into the real MinIO;
 * forceFlush/shutdown report real delivery.
 */
import { context, trace, TraceFlags } from "@opentelemetry/api";
import { SeverityNumber } from "@opentelemetry/api-logs";
import { setGlobalErrorHandler } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import { expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import { StowageLogExporter } from "../../src/otel.js";
import { s3Config, s3Reader } from "../support/loggers.js";
import { uniquePrefix } from "../support/minio.js";
import { readBack } from "../support/read-back.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";

function provider(exporter: StowageLogExporter) {
  return new LoggerProvider({
    resource: resourceFromAttributes({
      "service.name": "checkout",
      "deployment.environment": "test",
    }),
    processors: [
      new BatchLogRecordProcessor({
        exporter,
        scheduledDelayMillis: 100,
        maxExportBatchSize: 200,
      }),
    ],
  });
}

it("§2 LoggerProvider + BatchLogRecordProcessor + StowageLogExporter → MinIO, every field mapped", async () => {
  const prefix = uniquePrefix("otel");
  const logger = createLogger(
    s3Config(prefix, { flushIntervalMs: 600_000 }) as Parameters<typeof createLogger>[0],
  );
  const p = provider(new StowageLogExporter(logger));
  const otel = p.getLogger("payments", "1.0.0");
  const inSpan = trace.setSpanContext(context.active(), {
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    traceFlags: TraceFlags.SAMPLED,
  });
  const N = 1000;
  for (let i = 0; i < N; i++) {
    otel.emit({
      severityNumber:
        i % 100 === 0
          ? SeverityNumber.ERROR2
          : i % 10 === 0
            ? SeverityNumber.WARN
            : SeverityNumber.INFO,
      severityText: "whatever",
      body: `payment ${i}`,
      attributes: { id: i, "http.route": "/pay/:id", card_number: "4111111111111111" },
      context: inSpan,
    });
  }
  otel.emit({
    severityText: "FATAL",
    body: { structured: true },
    timestamp: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
  });
  await p.forceFlush(); // resolves: delivered
  await p.shutdown();

  const reader = s3Reader();
  const lines = (await readBack(reader, `${prefix}/`)).flatMap((o) => o.lines);
  reader.close();
  expect(lines).toHaveLength(N + 1);
  const ids = new Set(lines.map((l) => (l.data as { id?: number }).id));
  expect(ids.size).toBe(N + 1); // 0..999 and the one without an id
  const r = lines.find((l) => (l.data as { id?: number }).id === 10)!;
  expect(r).toMatchObject({
    level: "warning",
    message: "payment 10",
    service: "checkout",
    bindings: { "deployment.environment": "test", "otel.scope.name": "payments" },
    data: { id: 10, "http.route": "/pay/:id", card_number: "[REDACTED]" },
    traceId: TRACE_ID,
    spanId: SPAN_ID,
  });
  expect(lines.filter((l) => l.level === "error")).toHaveLength(10);
  const fatal = lines.find((l) => l.level === "critical")!;
  expect(fatal).toMatchObject({
    message: "",
    timestamp: "2026-01-02T03:04:05.006Z",
    data: { body: { structured: true } },
  });
  expect(fatal.traceId).toBeUndefined();
});

it("§2 forceFlush and shutdown reject when delivery fails (the result reflects real delivery)", async () => {
  const prefix = uniquePrefix("otel-fail");
  const logger = createLogger(
    s3Config(
      prefix,
      { flushIntervalMs: 600_000, maxAttempts: 1 },
      { secret: "not-the-secret" },
    ) as Parameters<typeof createLogger>[0],
  );
  const exporter = new StowageLogExporter(logger, { timeoutMs: 10_000 });
  const p = provider(exporter);
  // The SDK hands errors from its own forceFlush to the global error handler.
  const reported: unknown[] = [];
  setGlobalErrorHandler((e) => reported.push(e));
  p.getLogger("x").emit({ severityNumber: SeverityNumber.INFO, body: "lost?" });
  await p.forceFlush();
  expect(String(reported[0])).toMatch(/stowage forceFlush: delivery failed \(s3: .*auth/);
  await expect(exporter.forceFlush()).rejects.toThrow(/delivery failed/);
  await expect(p.shutdown()).rejects.toThrow(/stowage shutdown: delivery failed/);
});
