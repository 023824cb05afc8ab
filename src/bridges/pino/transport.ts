/**
 * The pino transport (`pino.transport({ target: "stowage/pino", options })`),
 * built on pino-abstract-transport and run in pino's worker thread. pino's
 * `flush(cb)` waits for delivery (the worker's `flush` is the logger's flush);
 * the end of the stream (pino's exit hook, `transport.end()`) closes the logger
 * within `flushTimeoutMs`, kept under thread-stream's 10 s exit wait.
 *
 * Invariants (issue 30 rows 2, 3):
 * - The worker never hands an error to thread-stream: thread-stream takes any error
 *   from the destination (a flush callback's included) as the worker's death — it
 *   emits 'error' on the app's stream (no listener: the app crashes) and terminates
 *   the worker, losing every later line. A failed flush is reported on stderr and
 *   sent to the main thread as a `stowage:flush` event (`withFlushErrors` hands it
 *   to pino's flush callback); the transport lives on.
 * - Reports go straight to fd 2 (bridges/shared/stderr-report.ts): at exit the main thread is
 *   blocked in thread-stream's `end()`, and the worker's `process.stderr` is relayed
 *   through it, so a loss at exit reported that way would never be seen.
 */
import { parentPort } from "node:worker_threads";
import build from "pino-abstract-transport";
import type { LoggerConfig } from "../../logger/create-logger.js";
import type { FlushResult } from "../../logger/flush-result.js";
import { openBridgeLogger } from "../shared/open-logger.js";
import {
  checkBridgeOptions,
  inlineLoggerConfig,
  LOGGER_CONFIG_KEYS,
} from "../shared/bridge-options.js";
import { nextTurn } from "../../shared/abort.js";
import { FLUSH_EVENT, type FlushOutcome } from "./flush-errors.js";
import { PINO_FIELD_OPTION_KEYS, type PinoFieldOptions } from "./map-record.js";
import { PinoRecordWriter, stderrReporter } from "./record-writer.js";

/**
 * `options` of `pino.transport({ target: "stowage/pino", options })`: plain data (it crosses a
 * thread). The logger config may also be given by its own keys at the top (`destination`,
 * `s3`, `service`, …) instead of under `config`; any other key is refused.
 */
export interface PinoTransportOptions extends PinoFieldOptions, Omit<LoggerConfig, "onEvent"> {
  /** An inline logger config, or a config file path; default: `stowage.config.*` of the working directory. */
  config?: LoggerConfig | string;
  /** How long pino's flush and the exit-time close wait for delivery (default 8,000 ms). */
  flushTimeoutMs?: number;
}

const BRIDGE = "stowage/pino";
/** Every key the transport's options may carry: its own, pino's field keys, a logger config's. */
const TRANSPORT_OPTION_KEYS = [
  "config",
  "flushTimeoutMs",
  ...PINO_FIELD_OPTION_KEYS,
  ...LOGGER_CONFIG_KEYS,
];

/** Keys pino and thread-stream add to the options on their way to the worker. */
const ADDED_BY_PINO = ["pinoWillSendConfig", "$context"];

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
  checkBridgeOptions(BRIDGE, options, TRANSPORT_OPTION_KEYS, ADDED_BY_PINO);
  const timeoutMs = options.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS;
  const config = inlineLoggerConfig(BRIDGE, options as Record<string, unknown>);
  const { logger, owned } = openBridgeLogger(config === undefined ? {} : { config }, BRIDGE);
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
        owned,
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
        // An error here would reach thread-stream as the worker's: report it instead.
        await writer?.close(timeoutMs).catch(reportUnexpected("close"));
      },
    },
  )) as PinoStream;
  // thread-stream calls the destination's flush(cb) for pino's logger.flush(cb).
  stream.flush = (cb) => {
    void settleReadable(stream)
      .then(() => writer?.flush(timeoutMs))
      .then(
        (result) => postFlushOutcome(result, writer),
        (err: unknown) => {
          reportUnexpected("flush")(err);
          postFlushOutcome(undefined, writer, err);
        },
      )
      .finally(() => cb(null));
  };
  return stream;
}

/** Tells the main thread how the flush went (thread-stream relays `EVENT` messages as stream events). */
function postFlushOutcome(
  result: FlushResult | undefined,
  writer: PinoRecordWriter | undefined,
  err?: unknown,
): void {
  let outcome: FlushOutcome = { ok: true };
  if (err !== undefined) outcome = { ok: false, message: `stowage: flush failed: ${String(err)}` };
  else if (result && !result.ok && writer)
    outcome = {
      ok: false,
      message: `stowage: flush did not deliver every record (${writer.describeFailure(result, "flush")})`,
    };
  try {
    parentPort?.postMessage({ code: "EVENT", name: FLUSH_EVENT, args: [outcome] });
  } catch {
    // The main thread is gone: nobody is waiting for the outcome.
  }
}

function reportUnexpected(what: string): (err: unknown) => void {
  return (err) =>
    stderrReporter(`${what} failed: ${err instanceof Error ? err.message : String(err)}`);
}

/** Lets lines already written into the stream reach the 'data' handler. */
async function settleReadable(stream: PinoStream): Promise<void> {
  for (let i = 0; i < 1000 && (stream.readableLength > 0 || stream.writableLength > 0); i++)
    await nextTurn();
}
