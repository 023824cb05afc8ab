/**
 * Issue 30 row 8: the OpenTelemetry exporter with records it cannot store. The real SDK
 * (LoggerProvider, BatchLogRecordProcessor) and the real MinIO, the bucket read back:
 * one bad record must not take its batch with it, and must not be acknowledged.
 */
import { SeverityNumber } from "@opentelemetry/api-logs";
import { ExportResultCode, setGlobalErrorHandler, type ExportResult } from "@opentelemetry/core";
import {
  BatchLogRecordProcessor,
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
} from "@opentelemetry/sdk-logs";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import { StowageLogExporter } from "../../src/otel.js";
import { bucketIdCounts, s3Config } from "../support/loggers.js";
import { uniquePrefix } from "../support/minio.js";

const VALID = 412;
/** A long interval and no record limit in sight: only the exporter's flushes deliver. */
const delivery = { flushIntervalMs: 600_000, maxRecordBytes: 4_096 };

function s3Logger(prefix: string) {
  return createLogger(s3Config(prefix, delivery) as Parameters<typeof createLogger>[0]);
}

/** The SDK reports export failures and a failed forceFlush to the global error handler. */
const reported: string[] = [];
setGlobalErrorHandler((e) => reported.push(String(e)));
afterEach(() => {
  reported.length = 0;
});

function emitBatch(provider: LoggerProvider, bad: { timestamp?: Date; body?: string }): void {
  const otel = provider.getLogger("checkout");
  // The bad record first, as found: today it throws before any of the batch is written.
  otel.emit({ severityNumber: SeverityNumber.INFO, body: "bad", attributes: { id: -1 }, ...bad });
  for (let i = 0; i < VALID; i++)
    otel.emit({ severityNumber: SeverityNumber.INFO, body: `paid ${i}`, attributes: { id: i } });
}

async function expectValidExactlyOnce(prefix: string): Promise<void> {
  const counts = await bucketIdCounts(prefix);
  expect(counts.has(-1)).toBe(false);
  expect(counts.size).toBe(VALID);
  for (let i = 0; i < VALID; i++)
    if (counts.get(i) !== 1) expect([i, counts.get(i)]).toEqual([i, 1]);
}

describe("issue 30 row 8: OpenTelemetry, a batch with a record that cannot be stored", () => {
  it.each([
    [
      "an invalid timestamp (hrTime NaN)",
      { timestamp: new Date("not a date") },
      /invalid timestamp/,
    ],
    ["a record over maxRecordBytes", { body: "x".repeat(8_192) }, /refused/],
  ])(
    "issue 30 row 8 %s: the other 412 records of the batch are stored, forceFlush and shutdown reject",
    async (_name, bad, why) => {
      const prefix = uniquePrefix("otel-bad-record");
      const exporter = new StowageLogExporter(s3Logger(prefix), { timeoutMs: 20_000 });
      const provider = new LoggerProvider({
        processors: [
          new BatchLogRecordProcessor({
            exporter,
            scheduledDelayMillis: 600_000,
            maxExportBatchSize: 1_000,
          }),
        ],
      });
      emitBatch(provider, bad);
      await provider.forceFlush();
      await expectValidExactlyOnce(prefix);
      await expect(exporter.forceFlush()).rejects.toThrow(why);
      await expect(provider.shutdown()).rejects.toThrow(/stowage shutdown: 1 record\(s\) lost/);
      // The export answered FAILED, naming what was lost; the SDK passed it on.
      expect(reported.join("\n")).toMatch(/1 of 413 records were not exported/);
      expect(exporter.counts.exported).toBe(VALID);
      expect(exporter.counts.lost).toBe(1);
    },
  );

  it("issue 30 row 8 export() itself answers FAILED with the invalid count, and writes the valid records", async () => {
    // Real SDK records, captured by the SDK's in-memory exporter.
    const memory = new InMemoryLogRecordExporter();
    const capture = new LoggerProvider({
      processors: [new SimpleLogRecordProcessor({ exporter: memory })],
    });
    emitBatch(capture, { timestamp: new Date("not a date") });
    await capture.forceFlush();
    const records = memory.getFinishedLogRecords();
    expect(records).toHaveLength(VALID + 1);

    const prefix = uniquePrefix("otel-export-result");
    const exporter = new StowageLogExporter(s3Logger(prefix));
    let result: ExportResult | undefined;
    try {
      result = await new Promise<ExportResult>((resolve) => exporter.export(records, resolve));
    } finally {
      await exporter.shutdown().catch(() => undefined);
    }
    await expectValidExactlyOnce(prefix);
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(String(result.error)).toMatch(/1 of 413 records were not exported: 1 invalid timestamp/);
    await expect(exporter.forceFlush()).rejects.toThrow(/1 record\(s\) lost/);
    expect(exporter.counts.invalid).toBe(1);
  });
});
