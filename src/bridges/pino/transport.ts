/**
 * The pino transport (`pino.transport({ target: "stowage/pino", options })`),
 * built on pino-abstract-transport and run in pino's worker thread. pino's
 * `flush(cb)` waits for delivery (the worker's `flush` is the logger's flush);
 * the end of the stream (pino's exit hook, `transport.end()`) closes the logger
 * within `flushTimeoutMs`, kept under thread-stream's 10 s exit wait.
 */
import build from "pino-abstract-transport";
import type { LoggerConfig } from "../../logger/create-logger.js";
import { openBridgeLogger } from "../shared/open-logger.js";
import { nextTurn } from "../../shared/abort.js";
import type { PinoFieldOptions } from "./map-record.js";
import { PinoRecordWriter, stderrReporter } from "./record-writer.js";

/** `options` of `pino.transport({ target: "stowage/pino", options })`: plain data (it crosses a thread). */
export interface PinoTransportOptions extends PinoFieldOptions {
  /** An inline logger config, or a config file path; default: `stowage.config.*` of the working directory. */
  config?: LoggerConfig | string;
  /** How long pino's flush and the exit-time close wait for delivery (default 8,000 ms). */
  flushTimeoutMs?: number;
}

/** Thread-stream gives up waiting for a worker at exit after 10 s: stay below it. */
const DEFAULT_FLUSH_TIMEOUT_MS = 8_000;

type PinoStream = Awaited<ReturnType<typeof build>> & {
  messageKey?: string;
  errorKey?: string;
  flush?: (cb: (err?: Error | null) => void) => void;
};

/**
 * @example
 * import pino from "pino";
 * const log = pino(pino.transport({ target: "stowage/pino",
 *   options: { config: "stowage.config.yaml" } }));
 * log.child({ requestId: "r-1" }).info({ orderId: 7 }, "paid");
 */
export default async function stowageTransport(
  options: PinoTransportOptions = {},
): Promise<PinoStream> {
  const timeoutMs = options.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS;
  const { logger, owned } = openBridgeLogger(
    options.config === undefined ? {} : { config: options.config },
  );
  let writer: PinoRecordWriter | undefined;
  const stream = (await build(
    (source: PinoStream) => {
      writer = new PinoRecordWriter(
        logger,
        {
          ...options,
          messageKey: options.messageKey ?? source.messageKey,
          errorKey: options.errorKey ?? source.errorKey,
        },
        stderrReporter,
      );
      const w = writer;
      source.on("data", (line: Record<string, unknown>) => w.write(line));
      source.on("unknown", (line: string) =>
        stderrReporter(`skipped a line that is not JSON (${line.length} chars)`),
      );
    },
    {
      expectPinoConfig: true,
      close: async () => {
        await writer?.close(timeoutMs, owned);
      },
    },
  )) as PinoStream;
  // thread-stream calls the destination's flush(cb) for pino's logger.flush(cb).
  stream.flush = (cb) => {
    void settleReadable(stream)
      .then(() => writer?.flush(timeoutMs))
      .then(
        (result) =>
          cb(
            result && !result.ok ? new Error("stowage: flush did not deliver every record") : null,
          ),
        (err: unknown) => cb(err as Error),
      );
  };
  return stream;
}

/** Lets lines already written into the stream reach the 'data' handler. */
async function settleReadable(stream: PinoStream): Promise<void> {
  for (let i = 0; i < 1000 && (stream.readableLength > 0 || stream.writableLength > 0); i++)
    await nextTurn();
}
