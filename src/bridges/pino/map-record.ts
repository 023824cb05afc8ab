/**
 * pino line → Stowage record: numeric level → level, `time` →
 * timestamp, `msg` → message, `err` → error, bindings (pid, hostname, child
 * bindings) → bindings, the call's object → data.
 *
 * A pino line is flat: child bindings and the call's fields share one object.
 * They are told apart by pino's `nestedKey` (the call's object sits under it, so
 * every other key is a binding) or, without it, by `bindingKeys`.
 */
import type { LogRecord } from "../../record/record.js";
import type { Level } from "../../record/levels.js";

/** How the fields of a pino line are read. */
export interface PinoFieldOptions {
  /** pino's `messageKey` (default `msg`). */
  messageKey?: string | undefined;
  /** pino's `errorKey` (default `err`). */
  errorKey?: string | undefined;
  /** pino's `nestedKey`, when the app sets one: that key → data, other keys → bindings. */
  nestedKey?: string;
  /** Without `nestedKey`: top-level keys taken as bindings (default `pid`, `hostname`, `name`). */
  bindingKeys?: readonly string[];
}

/** The keys of PinoFieldOptions (the bridges refuse any other, issue 34 §1). */
export const PINO_FIELD_OPTION_KEYS: readonly string[] = Object.freeze([
  "messageKey",
  "errorKey",
  "nestedKey",
  "bindingKeys",
]);

export type PinoRecord = Partial<LogRecord> & { message: string; timestamp: string };

const DEFAULT_BINDING_KEYS = ["pid", "hostname", "name"];

/**
 * pino's numeric levels (10 trace … 60 fatal, custom levels in between) → Stowage levels.
 * @example pinoLevel(40) // "warning"
 */
export function pinoLevel(value: unknown): Level {
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(n) || n < 20) return "trace";
  if (n < 30) return "debug";
  if (n < 40) return "info";
  if (n < 50) return "warning";
  if (n < 60) return "error";
  return "critical";
}

/**
 * @example mapPinoLine({ level: 30, time: 0, msg: "hi", pid: 1, a: 2 }, {})
 * // { level: "info", timestamp: "1970-01-01T00:00:00.000Z", message: "hi", bindings: { pid: 1 }, data: { a: 2 } }
 */
export function mapPinoLine(line: Record<string, unknown>, o: PinoFieldOptions): PinoRecord {
  const messageKey = o.messageKey ?? "msg";
  const errorKey = o.errorKey ?? "err";
  const bindingKeys = o.bindingKeys ?? DEFAULT_BINDING_KEYS;
  const time = typeof line.time === "number" ? line.time : Date.parse(String(line.time));
  const rec: PinoRecord = {
    level: pinoLevel(line.level),
    timestamp: new Date(Number.isFinite(time) ? time : Date.now()).toISOString(),
    message: typeof line[messageKey] === "string" ? (line[messageKey] as string) : "",
  };
  let bindings: Record<string, unknown> | undefined;
  let data: Record<string, unknown> | undefined;
  for (const key of Object.keys(line)) {
    if (key === "level" || key === "time" || key === messageKey) continue;
    const value = line[key];
    if (key === errorKey) rec.error = pinoError(value);
    else if (key === "trace_id" || key === "traceId") rec.traceId = String(value);
    else if (key === "span_id" || key === "spanId") rec.spanId = String(value);
    else if (o.nestedKey !== undefined && key === o.nestedKey)
      rec.data = liftError(value, errorKey, rec);
    else if (o.nestedKey !== undefined || bindingKeys.includes(key)) (bindings ??= {})[key] = value;
    else (data ??= {})[key] = value;
  }
  if (bindings) rec.bindings = bindings;
  if (data) rec.data = data;
  return rec;
}

/** pino puts an `err` given inside the call's object under `nestedKey`: it is still the record's error. */
function liftError(value: unknown, errorKey: string, rec: PinoRecord): unknown {
  if (value === null || typeof value !== "object" || !Object.hasOwn(value, errorKey)) return value;
  const { [errorKey]: err, ...rest } = value as Record<string, unknown>;
  rec.error = pinoError(err);
  return rest;
}

/** pino's serialised error (`{type, message, stack}`) → the record's error shape (`name`). */
function pinoError(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const { type, ...rest } = value as Record<string, unknown>;
  return typeof type === "string" && rest.name === undefined ? { name: type, ...rest } : value;
}
