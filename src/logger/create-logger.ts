/**
 * createLogger (SPEC §3.2): resolves the config (an object, or the
 * stowage.config.* file of the working directory, or the embedded local
 * default), compiles redaction once, and joins a Logger to its sink.
 * No side effects until it is called.
 */
import { findConfigFile, loadConfigFileSync } from "../config/load-config.js";
import { resolveLoggerConfig, type ResolvedLoggerConfig } from "../config/logger-config.js";
import type { LoggerConfig } from "../config/logger-schema.js";
import { processEnv } from "../config/env.js";
import { compileRedaction } from "../record/redact.js";
import { openStore } from "../store/open-store.js";
import type { DeliveryEventListener } from "../delivery/events.js";
import { StowageError } from "../shared/errors.js";
import { createConnectors } from "../connectors/connector-set.js";
import { ConsoleEcho } from "./console-echo.js";
import type { Sink } from "./flush-result.js";
import { Logger, type LoggerCore } from "./logger.js";
import { DeliverySink } from "../delivery/delivery-sink.js";
import { MemoryBuffer } from "../delivery/memory-buffer.js";
import { createSqliteSink } from "../spool/create-sqlite-sink.js";

/**
 * Options accepted by createLogger / defineConfig (SPEC §2.0). A config object
 * passed in code may also carry `onEvent: (event: DeliveryEvent) => void`.
 */
export type { LoggerConfig };

/**
 * Creates a logger. Without an argument it reads `stowage.config.*` from the
 * working directory; without one of those, it logs to `./.stowage/store`.
 * @example
 * const log = createLogger({ service: "api", destination: "s3",
 *   s3: { bucket: "logs", prefix: "api", region: "eu-west-1" } });
 * log.info("started");
 */
export function createLogger(config?: LoggerConfig): Logger {
  const env = processEnv();
  const cwd = process.cwd();
  const { config: rest, onEvent } = takeOnEvent(config);
  let raw: unknown = rest;
  let origin: "code" | "data" = "code";
  let file: string | undefined;
  if (config === undefined) {
    const found = findConfigFile(cwd);
    // Several stowage.config.* files: the first wins, and the user hears about the others.
    if (found.warning) process.emitWarning(found.warning, "StowageConfigWarning");
    if (found.path) {
      const loaded = loadConfigFileSync(found.path, { env, cwd });
      raw = loaded.data;
      origin = loaded.origin;
      file = loaded.path;
    }
  }
  const resolved = resolveLoggerConfig(raw ?? {}, {
    env,
    cwd,
    isTTY: Boolean(process.stdout.isTTY),
    origin,
    ...(file ? { file } : {}),
  });
  return buildLogger(resolved, env, onEvent);
}

/**
 * `onEvent` (a function, code configs only) is not part of the validated config:
 * it is taken out before validation. Events: see delivery/events.ts.
 */
function takeOnEvent(config: unknown): { config: unknown; onEvent?: DeliveryEventListener } {
  if (config === null || typeof config !== "object" || !("onEvent" in config)) return { config };
  const { onEvent, ...rest } = config as { onEvent?: unknown };
  if (onEvent === undefined) return { config: rest };
  if (typeof onEvent !== "function") {
    throw new StowageError(
      "config",
      `onEvent must be a function (event) => void, got ${typeof onEvent}; remove it or pass a function`,
    );
  }
  return { config: rest, onEvent: onEvent as DeliveryEventListener };
}

/** Joins a resolved config to its sink and console echo. */
export function buildLogger(
  resolved: ResolvedLoggerConfig,
  env: Record<string, string | undefined>,
  onEvent?: DeliveryEventListener,
): Logger {
  const sink = createSink(resolved, env, onEvent);
  const echo =
    resolved.console === false
      ? null
      : new ConsoleEcho(
          resolved.console,
          process.stdout,
          Boolean(process.stdout.isTTY) && !env.NO_COLOR,
        );
  const core: LoggerCore = {
    service: resolved.service,
    level: resolved.level,
    sink,
    connectors: createConnectors(resolved.connectors, env, resolved.service),
    echo,
    serialize: {
      redact: compileRedaction({
        keys: resolved.redact.keys,
        paths: resolved.redact.paths,
        patterns: resolved.redact.patterns,
        disableDefaults: resolved.redact.disableDefaults,
      }),
    },
    callerRoot: resolved.caller ? process.cwd() : null,
    closed: false,
    soon: [],
  };
  return new Logger(core, undefined);
}

function createSink(
  resolved: ResolvedLoggerConfig,
  env: Record<string, string | undefined>,
  onEvent: DeliveryEventListener | undefined,
): Sink {
  const d = resolved.delivery;
  const { store } = openStore(resolved.destination, {
    env,
    requestTimeoutMs: d.requestTimeoutMs,
    maxAttempts: 1,
  });
  if (d.buffer === "sqlite") {
    try {
      return createSqliteSink(resolved, env, store, onEvent);
    } catch (err) {
      store.close();
      throw err;
    }
  }
  const dest = resolved.destination;
  const batching = {
    prefix: dest.type === "s3" ? dest.prefix : "",
    flushIntervalMs: d.flushIntervalMs,
    maxBatchBytes: d.maxBatchBytes,
    maxBatchRecords: d.maxBatchRecords,
    concurrency: d.concurrency,
  };
  return new DeliverySink(
    dest.type,
    store,
    {
      ...d,
      onEvent,
      objectLock: dest.type === "s3" ? dest.objectLock : undefined,
      // Memory holds the only copy: a process that ends by running out of work delivers first.
      drainBeforeExit: true,
    },
    (host) => new MemoryBuffer(host, batching),
  );
}
