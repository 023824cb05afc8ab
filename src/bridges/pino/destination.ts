/**
 * A main-thread pino destination, for apps that cannot use worker transports:
 * `pino(opts, createPinoDestination({ logger }))`. Each line pino writes is
 * parsed and handed to `Logger.write`; `flush()`/`end()` map to the logger's.
 */
import { Writable } from "node:stream";
import type { FlushResult } from "../../logger/flush-result.js";
import type { LoggerConfig } from "../../logger/create-logger.js";
import { openBridgeLogger, type BridgeLoggerOptions } from "../shared/open-logger.js";
import { PINO_FIELD_OPTION_KEYS, type PinoFieldOptions } from "./map-record.js";
import {
  checkBridgeOptions,
  inlineLoggerConfig,
  LOGGER_CONFIG_KEYS,
} from "../shared/bridge-options.js";

const DESTINATION_OPTION_KEYS = [
  "logger",
  "config",
  "flushTimeoutMs",
  "onError",
  ...PINO_FIELD_OPTION_KEYS,
  ...LOGGER_CONFIG_KEYS,
];
import { PinoRecordWriter, stderrReporter, type BridgeErrorReporter } from "./record-writer.js";

/** Options of the destination; the logger config may also be given by its own keys at the top. */
export interface PinoDestinationOptions
  extends BridgeLoggerOptions, PinoFieldOptions, Omit<LoggerConfig, "onEvent"> {
  /** How long flush/end wait for delivery (default 8,000 ms). */
  flushTimeoutMs?: number;
  /** Where failures are reported (default: stderr). */
  onError?: BridgeErrorReporter;
}

/** A pino destination stream whose `flushDelivery()` resolves with the logger's FlushResult. */
export interface PinoDestination extends Writable {
  flushDelivery(): Promise<FlushResult>;
  /** pino's `logger.flush(cb)` calls this. */
  flush(cb?: (err?: Error | null) => void): void;
}

/**
 * @example
 * const dest = createPinoDestination({ config: { service: "api" }, nestedKey: "data" });
 * const log = pino({ nestedKey: "data" }, dest);
 * log.info({ id: 1 }, "saved");
 * await dest.flushDelivery();
 */
export function createPinoDestination(options: PinoDestinationOptions = {}): PinoDestination {
  checkBridgeOptions("stowage/pino", options, DESTINATION_OPTION_KEYS);
  const config = inlineLoggerConfig("stowage/pino", options as Record<string, unknown>);
  const { logger, owned } = openBridgeLogger(
    {
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(config === undefined ? {} : { config }),
    },
    "stowage/pino",
  );
  const timeoutMs = options.flushTimeoutMs ?? 8_000;
  const report = options.onError ?? stderrReporter;
  const writer = new PinoRecordWriter(logger, options, report, owned);
  const dest = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, cb) {
      const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
      // pino writes whole lines (one per call, newline-terminated).
      for (const line of text.split("\n")) {
        if (line.length === 0) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          report(`skipped a line that is not JSON (${line.length} chars)`);
          continue;
        }
        if (parsed !== null && typeof parsed === "object")
          writer.write(parsed as Record<string, unknown>);
      }
      cb();
    },
    final(cb) {
      writer.close(timeoutMs).then(
        () => cb(),
        (err: unknown) => cb(err as Error),
      );
    },
  }) as PinoDestination;
  dest.flushDelivery = () => writer.flush(timeoutMs);
  dest.flush = (cb) => {
    writer.flush(timeoutMs).then(
      (r) => cb?.(r.ok ? null : new Error("stowage: flush did not deliver every record")),
      (err: unknown) => cb?.(err as Error),
    );
  };
  return dest;
}
