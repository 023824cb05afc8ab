/**
 * Safe serialisation of a whole record (§3.1): one sanitising walk (caps and
 * redaction applied on the way) then one `JSON.stringify`. Never throws.
 */
import type { LogRecord } from "./record.js";
import { initialStates, PATH_MATCH, stepPaths, type PathStates } from "./redact-paths.js";
import {
  createContext,
  REDACTED,
  UNSERIALIZABLE,
  walk,
  wellFormed,
  type SanitizeOptions,
  type WalkContext,
} from "./sanitize.js";

export type { SanitizeOptions as SerializeOptions } from "./sanitize.js";
export { SANITIZE_DEFAULTS as SERIALIZE_DEFAULTS } from "./sanitize.js";

/**
 * A redacted, plain copy of `record` in canonical field order; unknown fields
 * are dropped. `timestamp` and `level` are copied as text and never
 * pattern-scanned; every other string is capped, repaired and redacted.
 * @example sanitizeRecord(record, { redact: compileRedaction({}) })
 */
export function sanitizeRecord(record: LogRecord, opts: SanitizeOptions = {}): LogRecord {
  const ctx = createContext(opts);
  const states = ctx.plan === null ? null : initialStates(ctx.plan.paths);
  const out = {
    timestamp: structural(record.timestamp, ctx),
    level: structural(record.level, ctx),
    message: field("message", text(record.message), ctx, states),
  } as Record<string, unknown>;
  put(out, "service", record.service, ctx, states, true);
  put(out, "caller", record.caller, ctx, states, true);
  put(out, "data", record.data, ctx, states, false);
  put(out, "bindings", record.bindings, ctx, states, false);
  put(out, "error", record.error, ctx, states, false);
  put(out, "traceId", record.traceId, ctx, states, true);
  put(out, "spanId", record.spanId, ctx, states, true);
  return out as unknown as LogRecord;
}

/**
 * One record → one JSON line (no trailing newline). Never throws: if anything
 * still fails, a minimal record with message "[Unserializable]" is returned.
 * @example serializeRecord({ timestamp, level: "info", message: "hi", data: { n: 1n } })
 * // '{"timestamp":"…","level":"info","message":"hi","data":{"n":"1"}}'
 */
export function serializeRecord(record: LogRecord, opts: SanitizeOptions = {}): string {
  try {
    return JSON.stringify(sanitizeRecord(record, opts));
  } catch {
    return fallbackLine(record);
  }
}

/**
 * Like serializeRecord, with the `bindings` field given as ready JSON (a child
 * logger's bindings, sanitised and redacted once in `child()`): the record's own
 * `bindings` is ignored, the rest is walked as usual, field order is canonical.
 * @example serializeRecordWithBindings(record, '{"requestId":"r-1"}', opts)
 */
export function serializeRecordWithBindings(
  record: LogRecord,
  bindingsJson: string,
  opts: SanitizeOptions = {},
): string {
  try {
    const ctx = createContext(opts);
    const states = ctx.plan === null ? null : initialStates(ctx.plan.paths);
    const head: Record<string, unknown> = {
      timestamp: structural(record.timestamp, ctx),
      level: structural(record.level, ctx),
      message: field("message", text(record.message), ctx, states),
    };
    put(head, "service", record.service, ctx, states, true);
    put(head, "caller", record.caller, ctx, states, true);
    put(head, "data", record.data, ctx, states, false);
    const tail: Record<string, unknown> = {};
    put(tail, "error", record.error, ctx, states, false);
    put(tail, "traceId", record.traceId, ctx, states, true);
    put(tail, "spanId", record.spanId, ctx, states, true);
    const h = JSON.stringify(head);
    const rest =
      record.error === undefined && record.traceId === undefined && record.spanId === undefined
        ? "}"
        : tailJson(JSON.stringify(tail));
    return `${h.slice(0, -1)},"bindings":${bindingsJson}${rest}`;
  } catch {
    return fallbackLine(record);
  }
}

function tailJson(t: string): string {
  return t === "{}" ? "}" : `,${t.slice(1)}`;
}

/**
 * Sanitises one record field's value on its own, with the paths that apply to
 * that field (e.g. `child()` bindings serialised once, then reused per record).
 * @example const b = sanitizeField("bindings", { requestId, token }, { redact });
 */
export function sanitizeField(name: string, value: unknown, opts: SanitizeOptions = {}): unknown {
  const ctx = createContext(opts);
  return field(name, value, ctx, ctx.plan === null ? null : initialStates(ctx.plan.paths));
}

function put(
  out: Record<string, unknown>,
  name: string,
  v: unknown,
  ctx: WalkContext,
  states: PathStates | null,
  asText: boolean,
): void {
  if (v === undefined) return;
  const r = field(name, asText ? text(v) : v, ctx, states);
  if (r !== undefined) out[name] = r;
}

function field(name: string, v: unknown, ctx: WalkContext, states: PathStates | null): unknown {
  if (states === null || ctx.plan === null) return walk(v, 0, ctx, null);
  const next = stepPaths(ctx.plan.paths, states, name);
  return next === PATH_MATCH ? REDACTED : walk(v, 0, ctx, next);
}

/** `timestamp`/`level`: text, capped and surrogate-repaired, never pattern-scanned. */
function structural(v: unknown, ctx: WalkContext): string {
  let s = text(v);
  if (s.length > ctx.maxString) s = s.slice(0, ctx.maxString);
  return wellFormed(s);
}

/** Structural fields are text; anything else is converted without throwing. */
function text(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined || v === null) return "";
  try {
    return String(v);
  } catch {
    return UNSERIALIZABLE;
  }
}

function fallbackLine(record: LogRecord): string {
  const ctx = createContext({ maxStringLength: 64 });
  let timestamp = "";
  let level = "";
  try {
    timestamp = structural(record.timestamp, ctx);
    level = structural(record.level, ctx);
  } catch {
    // keep the empty defaults
  }
  return JSON.stringify({ timestamp, level, message: UNSERIALIZABLE });
}
