/**
 * The Logger (SPEC §3.2): level methods that never throw and never block on I/O,
 * `child`, runtime `level`, `write`, `flush`, `close`. Work that can be done once
 * is done at build time: redaction is compiled, disabled levels are no-ops,
 * `child()` bindings are sanitised, redacted and serialised once.
 *
 * Levels: each logger has its own level. A child starts at its
 * parent's level when created and does not follow later changes (as in pino);
 * `log.level` and the level methods of that same logger never disagree.
 */
import { LEVEL_VALUES, isLevel, parseLevel, type Level, type LevelName } from "../record/levels.js";
import { formatTimestamp, parseTimestamp, type LogRecord } from "../record/record.js";
import {
  serializeBindings,
  serializeField,
  serializeRecord,
  serializeRecordWithBindings,
  sanitizeValue,
  type SerializeOptions,
} from "../record/safe-json.js";
import { StowageError } from "../shared/errors.js";
import { isPlainObject } from "../shared/plain-object.js";
import { readRecord, safeCallArgs } from "./call-args.js";
import { captureCaller } from "./caller.js";
import type { ConnectorSet } from "../connectors/connector-set.js";
import type { ConsoleEcho } from "./console-echo.js";
import { flushResult, type FlushResult, type Sink } from "./flush-result.js";

type LogMethod = (message: unknown, data?: unknown) => void;

/** Shared by a logger and all its children. */
export interface LoggerCore {
  service: string | undefined;
  /** The configured level: the root logger's initial level. */
  level: Level;
  sink: Sink;
  /** Outbound connectors (docs/connectors.md); null when none is configured. */
  connectors: ConnectorSet | null;
  echo: ConsoleEcho | null;
  serialize: SerializeOptions;
  callerRoot: string | null;
  closed: boolean;
  /** Records of `logSoon`, written at the end of this event-loop turn (or by flush/close). */
  soon: SoonRecord[];
}

/** One record waiting for the end of the event-loop turn (`Logger.logSoon`). */
interface SoonRecord {
  logger: Logger;
  bindings: Record<string, unknown> | undefined;
  level: Level;
  message: string;
  data: Record<string, unknown>;
  /** When it was logged (its timestamp). */
  ms: number;
}

const noop: LogMethod = () => {};

/**
 * @example
 * const log = createLogger({ service: "api" });
 * log.info("listening", { port: 8080 });
 * const req = log.child({ requestId: "r-1" });
 * req.warn("slow", { ms: 1200 });
 * await log.flush({ timeoutMs: 5000 });
 */
export class Logger {
  trace: LogMethod = noop;
  debug: LogMethod = noop;
  info: LogMethod = noop;
  success: LogMethod = noop;
  warn: LogMethod = noop;
  warning: LogMethod = noop;
  error: LogMethod = noop;
  critical: LogMethod = noop;
  fatal: LogMethod = noop;

  private _level: Level;

  /** @internal */
  constructor(
    private readonly core: LoggerCore,
    /** The bindings as final JSON (redacted once), spliced into every record of this logger. */
    private readonly bindingsJson: string | undefined,
    level: Level = core.level,
  ) {
    this._level = level;
    this.bindMethods();
  }

  /**
   * The minimum level this logger records, for every destination and the console
   * echo. Settable at runtime; children created earlier keep their own level.
   */
  get level(): Level {
    return this._level;
  }
  set level(name: LevelName) {
    this._level = parseLevel(name);
    this.bindMethods();
  }

  /**
   * A logger whose records carry `bindings` (sanitised, redacted and serialised
   * once, here). It starts at this logger's current level.
   * @example const req = log.child({ requestId: "r-1" }); req.info("handled");
   */
  child(bindings: Record<string, unknown>): Logger {
    return new Logger(this.core, this.bindingsJsonWith(bindings), this._level);
  }

  /** The bindings JSON of `this.child(bindings)`: this logger's, with `bindings` over them. */
  private bindingsJsonWith(bindings: Record<string, unknown>): string | undefined {
    const serialize = this.core.serialize;
    // The usual child (plain bindings, a parent without any): straight to JSON, a flat
    // `{ requestId }` without the object walk (record/flat-bindings.ts: the same text).
    if (this.bindingsJson === undefined && isPlainObject(bindings))
      return serializeBindings(bindings, serialize);
    // A grandchild merges its own sanitised bindings over its parent's (the parent's JSON, parsed).
    const own = sanitizeValue(bindings, serialize) as Record<string, unknown>;
    const parent =
      this.bindingsJson === undefined
        ? undefined
        : (JSON.parse(this.bindingsJson) as Record<string, unknown>);
    const merged = parent ? { ...parent, ...(own ?? {}) } : own;
    return merged && typeof merged === "object"
      ? serializeField("bindings", merged, serialize)
      : undefined;
  }

  /**
   * Accepts a ready record (its timestamp is kept). Resolves when the record is
   * accepted: enqueued (memory) or committed to the spool (sqlite). Rejects with
   * StowageError("rejected") when it is not (oversized, queue or spool full, closed)
   * and with StowageError("usage") when the record is malformed.
   */
  write(input: Partial<LogRecord> & { message?: unknown }): Promise<void> {
    // Not `async`: a record the memory buffer keeps at once costs no promise of its own.
    try {
      const outcome = this.acceptRecord(input);
      if (outcome === null) return ACCEPTED;
      if (typeof outcome === "string") return Promise.reject(rejected(outcome));
      return outcome.then((reason) => {
        if (reason !== null) throw rejected(reason);
      });
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  /** write()'s synchronous part: validates, serialises and hands the record to the sink. */
  private acceptRecord(
    input: Partial<LogRecord> & { message?: unknown },
  ): ReturnType<Sink["acceptDurable"]> {
    if (this.core.closed)
      throw new StowageError("rejected", "the logger is closed; create a new one");
    const record = readRecord(input);
    const level = isLevel(record.level) ? record.level : parseWriteLevel(record.level);
    let ms = Date.now();
    if (record.timestamp !== undefined) {
      const parsed = typeof record.timestamp === "string" ? parseTimestamp(record.timestamp) : null;
      if (parsed === null) {
        throw new StowageError(
          "usage",
          `record.timestamp ${JSON.stringify(String(record.timestamp))} is not an ISO-8601 time; use e.g. new Date().toISOString()`,
        );
      }
      ms = parsed;
    }
    if (!this.enabled(level)) return null;
    // readRecord's copy (every known field, one fixed shape) becomes the record itself: no
    // second object on the ingestion hot path. An absent field stays undefined, which the
    // serialiser skips like a missing one.
    const ownBindings = record.bindings;
    const full = record as { -readonly [K in keyof LogRecord]-?: LogRecord[K] | undefined };
    full.timestamp = formatTimestamp(ms);
    full.level = level;
    full.message = messageText(record.message);
    full.service = record.service ?? this.core.service;
    if (ownBindings !== undefined && this.bindingsJson !== undefined)
      full.bindings = this.withOwnBindings(ownBindings);
    const line =
      ownBindings === undefined && this.bindingsJson !== undefined
        ? serializeRecordWithBindings(full as LogRecord, this.bindingsJson, this.core.serialize)
        : serializeRecord(full as LogRecord, this.core.serialize);
    this.core.echo?.echo(line, level);
    const outcome = this.core.sink.acceptDurable(line, ms);
    // Connectors get what the destination accepted (a refusal is a string).
    if (this.core.connectors !== null && typeof outcome !== "string")
      this.core.connectors.offer(line, level);
    return outcome;
  }

  /**
   * A written record's bindings under this logger's own: a child's bindings (a tenant set by
   * the server) are kept, and a record cannot overwrite them (an ingested client's cannot).
   */
  private withOwnBindings(bindings: unknown): Record<string, unknown> {
    const own = JSON.parse(this.bindingsJson!) as Record<string, unknown>;
    return isPlainObject(bindings) ? { ...bindings, ...own } : own;
  }

  /** Seals open batches and waits for delivery (or failure, or the timeout). Never rejects. */
  async flush(options: { timeoutMs?: number } = {}): Promise<FlushResult> {
    Logger.writeSoon(this.core);
    try {
      const [sink, connectors] = await Promise.all([
        this.core.sink.flush(options.timeoutMs),
        this.core.connectors?.flush(options.timeoutMs),
      ]);
      return flushResult(sink, connectors);
    } catch (err) {
      return internalFailure(this.core.sink.kind, err);
    }
  }

  /** flush, then release timers, sockets and workers: nothing keeps the process alive afterwards. */
  async close(options: { timeoutMs?: number } = {}): Promise<FlushResult> {
    Logger.writeSoon(this.core);
    this.core.closed = true;
    this.bindMethods();
    try {
      const [sink, connectors] = await Promise.all([
        this.core.sink.close(options.timeoutMs),
        this.core.connectors?.close(options.timeoutMs),
      ]);
      this.core.echo?.close();
      return flushResult(sink, connectors);
    } catch (err) {
      return internalFailure(this.core.sink.kind, err);
    }
  }

  /** Whether this logger writes `level` now (never once its core is closed). */
  private enabled(level: Level): boolean {
    return !this.core.closed && LEVEL_VALUES[level] >= LEVEL_VALUES[this._level];
  }

  private bindMethods(): void {
    const at = (level: Level) => (this.enabled(level) ? this.method(level) : noop);
    // One named store per method: every child does this, and named stores beat a keyed loop.
    this.trace = at("trace");
    this.debug = at("debug");
    this.info = at("info");
    this.success = at("success");
    this.warn = this.warning = at("warning");
    this.error = at("error");
    this.fatal = this.critical = at("critical");
  }

  private method(level: Level): LogMethod {
    const core = this.core;
    const bindingsJson = this.bindingsJson;
    return (first: unknown, second?: unknown) => emit(core, level, first, second, bindingsJson);
  }

  /**
   * @internal The framework adapters' request record: the line
   * `this.child(bindings)[level](message, data)` writes (same level filter, redaction,
   * echo and sink; with `bindings` undefined, this logger's own `[level](message, data)`)
   * without making the child logger. Its timestamp is taken now; it is serialised and
   * handed to the sink at the end of this event-loop turn (one `setImmediate` for all
   * records of the turn), after the responses the turn produced are on the wire.
   * `flush()` and `close()` write waiting records first; a waiting record keeps the
   * process alive like any pending work. `data` is kept by reference until then: pass an
   * object nothing else changes. Never throws.
   */
  logSoon(
    bindings: Record<string, unknown> | undefined,
    level: Level,
    message: string,
    data: Record<string, unknown>,
  ): void {
    if (!this.enabled(level)) return;
    const soon = this.core.soon;
    soon.push({ logger: this, bindings, level, message, data, ms: Date.now() });
    if (soon.length === 1) setImmediate(Logger.writeSoon, this.core);
  }

  /** Writes the records `logSoon` queued, in order (the end of a turn, or flush/close). */
  private static writeSoon(this: void, core: LoggerCore): void {
    const soon = core.soon;
    if (soon.length === 0) return;
    core.soon = [];
    for (const r of soon) r.logger.writeAt(r.bindings, r.level, r.message, r.data, r.ms);
  }

  /** A record of `logSoon`, stamped `ms`. Never throws. */
  private writeAt(
    bindings: Record<string, unknown> | undefined,
    level: Level,
    message: string,
    data: Record<string, unknown>,
    ms: number,
  ): void {
    try {
      if (!this.enabled(level)) return;
      const bindingsJson =
        bindings === undefined ? this.bindingsJson : this.bindingsJsonWith(bindings);
      emit(this.core, level, message, data, bindingsJson, ms, false);
    } catch {
      // Never throw from a logging call (SPEC §3.2).
    }
  }
}

/** A level method's record: built, serialised and handed to the sink (never throws). */
function emit(
  core: LoggerCore,
  level: Level,
  first: unknown,
  second: unknown,
  bindingsJson: string | undefined,
  ms: number = Date.now(),
  /** Capture `caller` (when configured); false for records made by an adapter, not at a call site. */
  callSite = true,
): void {
  try {
    const parts = safeCallArgs(first, second);
    const caller =
      callSite && core.callerRoot !== null
        ? captureCaller(core.callerRoot, 2) || undefined
        : undefined;
    // Every field in the literal (an absent one undefined, which the serialiser skips): one
    // object of one shape, no properties added to it afterwards.
    const record: { [K in keyof LogRecord]-?: LogRecord[K] | undefined } = {
      timestamp: formatTimestamp(ms),
      level,
      message: parts.message,
      service: core.service,
      caller,
      data: parts.data,
      bindings: undefined,
      error: parts.error,
      traceId: undefined,
      spanId: undefined,
    };
    const line =
      bindingsJson === undefined
        ? serializeRecord(record as LogRecord, core.serialize)
        : serializeRecordWithBindings(record as LogRecord, bindingsJson, core.serialize);
    core.echo?.echo(line, level);
    const refused = core.sink.accept(line, ms);
    if (core.connectors !== null && refused === null) core.connectors.offer(line, level);
  } catch {
    // Never throw from a logging call (SPEC §3.2); serializeRecord already never throws.
  }
}

/** A bad `record.level` is the caller's input error (usage), not a config error. */
function parseWriteLevel(name: unknown): Level {
  try {
    return parseLevel(name ?? "info", "record.level");
  } catch (err) {
    throw new StowageError("usage", (err as Error).message);
  }
}

function messageText(m: unknown): string {
  if (typeof m === "string") return m;
  try {
    return String(m ?? "");
  } catch {
    return "[Unserializable]";
  }
}

/** The promise every record accepted at once resolves with (shared: it carries no state). */
const ACCEPTED: Promise<void> = Promise.resolve();

/** The error carries `reason` (oversized, queueFull, spoolFull, closed) for callers that count refusals (ingestion). */
function rejected(reason: string): StowageError & { reason: string } {
  return Object.assign(new StowageError("rejected", rejectionMessage(reason)), { reason });
}

function rejectionMessage(reason: string): string {
  switch (reason) {
    case "oversized":
      return "record rejected: larger than maxRecordBytes (s3.delivery.maxRecordBytes)";
    case "queueFull":
      return "record rejected: the delivery queue is full (maxQueueBytes); delivery is behind or paused — see flush().destinations";
    case "spoolFull":
      return "record rejected: the spool is full (maxSpoolBytes); see `stowage spool status`";
    default:
      return "record rejected: the logger is closed";
  }
}

function internalFailure(kind: "s3" | "local", err: unknown): FlushResult {
  const message = err instanceof Error ? err.message : String(err);
  return {
    ok: false,
    timedOut: false,
    destinations: {
      sink: {
        kind,
        ok: false,
        delivered: 0,
        pending: 0,
        objects: 0,
        retries: 0,
        rejected: { oversized: 0, queueFull: 0, spoolFull: 0 },
        failure: {
          category: "other",
          code: "InternalError",
          message,
          since: new Date().toISOString(),
          batches: 0,
        },
      },
    },
  };
}
