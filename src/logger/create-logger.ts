/**
 * createLogger (SPEC §3.2) and the one config path behind it and the bridges
 * (createLoggerFrom): resolves the config (an object, a config file, or the
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
import type { ConnectorEvent } from "../connectors/connector.js";
import type { DeliveryEvent } from "../delivery/events.js";
import { StowageError } from "../shared/errors.js";
import { createConnectors } from "../connectors/connector-set.js";
import { ConsoleEcho } from "./console-echo.js";
import type { Sink } from "./flush-result.js";
import { Logger, type LoggerCore } from "./logger.js";
import { DeliverySink } from "../delivery/delivery-sink.js";
import { MemoryBuffer } from "../delivery/memory-buffer.js";
import { createSqliteSink } from "../spool/create-sqlite-sink.js";

/** What `onEvent` receives: the destination's delivery events and the connectors' (docs/logger.md#events). */
export type LoggerEvent = DeliveryEvent | ConnectorEvent;
/** A config object's `onEvent`; what it throws is swallowed. */
export type LoggerEventListener = (event: LoggerEvent) => void;

/**
 * Options accepted by createLogger / defineConfig (SPEC §2.0). A config object
 * passed in code may also carry `onEvent: (event: LoggerEvent) => void`.
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
  return createLoggerFrom(config === undefined ? {} : { config });
}

/** Where `createLoggerFrom` reads a logger's config (internal: createLogger and the bridges). */
export interface LoggerSource {
  /** A config object in code (may carry `onEvent`). */
  config?: LoggerConfig;
  /** Without `config`: a config file path (YAML/JSON/TS, read with the endpoint policy of its format). */
  file?: string;
  /** Whether stdout counts as a terminal for the `console` default ("pretty" on one). Default: `process.stdout.isTTY`. */
  isTTY?: boolean;
  /**
   * Without `config` or `file`, when the working directory has no `stowage.config.*`: called with
   * the embedded default before the logger is built (a bridge says where records go). A host that
   * sets it writes its own output to stdout: that default is resolved with `isTTY` false.
   */
  onEmbeddedDefault?: (resolved: ResolvedLoggerConfig) => void;
}

/**
 * The one config path: a config object, or a config file, or the working directory's
 * `stowage.config.*` (several: the first wins, with a warning), or the embedded default;
 * then validation (resolveLoggerConfig) and the logger (buildLogger).
 * @example const log = createLoggerFrom({ file: "stowage.config.yaml", isTTY: false });
 */
export function createLoggerFrom(source: LoggerSource): Logger {
  const env = processEnv();
  const cwd = process.cwd();
  const inCode = source.config !== undefined;
  const { config: raw, onEvent } = takeOnEvent(source.config);
  const file = inCode ? undefined : (source.file ?? discoverConfigFile(cwd));
  const loaded = file === undefined ? undefined : loadConfigFileSync(file, { env, cwd });
  const embeddedDefault = !inCode && loaded === undefined;
  const quiet = embeddedDefault && source.onEmbeddedDefault !== undefined;
  const resolved = resolveLoggerConfig((loaded ? loaded.data : raw) ?? {}, {
    env,
    cwd,
    isTTY: quiet ? false : (source.isTTY ?? Boolean(process.stdout.isTTY)),
    origin: loaded?.origin ?? "code",
    ...(loaded?.path ? { file: loaded.path } : {}),
  });
  if (embeddedDefault) source.onEmbeddedDefault?.(resolved);
  return buildLogger(resolved, env, onEvent);
}

/** The working directory's `stowage.config.*`, if any; several: the first wins and the user hears about the others. */
function discoverConfigFile(cwd: string): string | undefined {
  const found = findConfigFile(cwd);
  if (found.warning) process.emitWarning(found.warning, "StowageConfigWarning");
  return found.path ? found.path : undefined;
}

/**
 * `onEvent` (a function, code configs only) is not part of the validated config:
 * it is taken out before validation. Events: see delivery/events.ts.
 */
function takeOnEvent(config: unknown): { config: unknown; onEvent?: LoggerEventListener } {
  if (config === null || typeof config !== "object" || !("onEvent" in config)) return { config };
  const { onEvent, ...rest } = config as { onEvent?: unknown };
  if (onEvent === undefined) return { config: rest };
  if (typeof onEvent !== "function") {
    throw new StowageError(
      "config",
      `onEvent must be a function (event) => void, got ${typeof onEvent}; remove it or pass a function`,
    );
  }
  return { config: rest, onEvent: onEvent as LoggerEventListener };
}

/** Joins a resolved config to its sink and console echo. */
function buildLogger(
  resolved: ResolvedLoggerConfig,
  env: Record<string, string | undefined>,
  onEvent?: LoggerEventListener,
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
    connectors: createConnectors(resolved.connectors, env, resolved.service, onEvent),
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
  onEvent: LoggerEventListener | undefined,
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
