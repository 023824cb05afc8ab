/**
 * Safe serialisation of a whole record (§3.1): the record's JSON line, written by
 * the one walk (write-json.ts: caps and redaction applied on the way). Never throws.
 * The few callers that need a plain copy (child bindings merged over a parent's, a
 * `Redactor` called directly) parse the writer's text: `sanitizeRecord`,
 * `sanitizeField`, `sanitizeValue`.
 */
import type { LogRecord } from "./record.js";
import { initialStates, PATH_MATCH, stepPaths, type PathStates } from "./redact-paths.js";
import { writeJson } from "./write-json.js";
import { isPlainAscii } from "./plain-string.js";
import { flatBindingsJson } from "./flat-bindings.js";
import {
  createContext,
  fieldText,
  PLAIN_CHECK_MAX,
  REDACTED,
  structuralText,
  UNSERIALIZABLE,
  type SanitizeOptions,
  type WalkContext,
} from "./walk-context.js";

export type { SanitizeOptions as SerializeOptions } from "./walk-context.js";
export { SANITIZE_DEFAULTS as SERIALIZE_DEFAULTS } from "./walk-context.js";

const REDACTED_JSON = JSON.stringify(REDACTED);

/**
 * One record → one JSON line (no trailing newline), in canonical field order; unknown
 * fields are dropped. `timestamp` and `level` are copied as text and never
 * pattern-scanned; every other string is capped, repaired and redacted. Never
 * throws: if anything still fails, a minimal record with message
 * "[Unserializable]" is returned.
 * @example serializeRecord({ timestamp, level: "info", message: "hi", data: { n: 1n } })
 * // '{"timestamp":"…","level":"info","message":"hi","data":{"n":"1"}}'
 */
export function serializeRecord(record: LogRecord, opts: SanitizeOptions = {}): string {
  return writeRecord(record, undefined, opts);
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
  return writeRecord(record, bindingsJson, opts);
}

function writeRecord(
  record: LogRecord,
  bindingsJson: string | undefined,
  opts: SanitizeOptions,
): string {
  const ctx = contextFor(opts);
  try {
    const states = ctx.plan === null ? null : initialStates(ctx.plan.paths);
    let out = headJson(record, ctx, states);
    if (record.service !== undefined)
      out += putJson("service", fieldText(record.service), ctx, states);
    if (record.caller !== undefined)
      out += putJson("caller", fieldText(record.caller), ctx, states);
    if (record.data !== undefined) {
      const data = fieldJson("data", record.data, ctx, states);
      if (data !== undefined) {
        out += ',"data":';
        out += data;
      }
    }
    if (bindingsJson !== undefined) out += `,"bindings":${bindingsJson}`;
    else if (record.bindings !== undefined)
      out += putJson("bindings", record.bindings, ctx, states);
    if (record.error !== undefined) out += putJson("error", record.error, ctx, states);
    if (record.traceId !== undefined)
      out += putJson("traceId", fieldText(record.traceId), ctx, states);
    if (record.spanId !== undefined)
      out += putJson("spanId", fieldText(record.spanId), ctx, states);
    return `${out}}`;
  } catch {
    ctx.stack.length = 0;
    return fallbackLine(record);
  }
}

let lastOpts: SanitizeOptions | null = null;
let lastCtx: WalkContext | null = null;

/**
 * The walk context for `opts`, reused across records while it is idle (a
 * value's getter or toJSON that logs again gets a fresh one: the ancestors
 * of the outer walk must not look circular to the inner one).
 */
function contextFor(opts: SanitizeOptions): WalkContext {
  if (opts === lastOpts && lastCtx !== null && lastCtx.stack.length === 0) return lastCtx;
  lastCtx = createContext(opts);
  lastOpts = opts;
  return lastCtx;
}

/** `,"name":<json>` for one record field, or "" when the walk drops its value. */
function putJson(name: string, v: unknown, ctx: WalkContext, states: PathStates | null): string {
  const r = fieldJson(name, v, ctx, states);
  return r === undefined ? "" : `,"${name}":${r}`;
}

/** JSON text of record field `name` holding `v`: "[REDACTED]" when a custom path names the field. */
function fieldJson(
  name: string,
  v: unknown,
  ctx: WalkContext,
  states: PathStates | null,
): string | undefined {
  if (states === null || ctx.plan === null) return writeJson(v, 0, ctx, null);
  const next = stepPaths(ctx.plan.paths, states, name);
  return next === PATH_MATCH ? REDACTED_JSON : writeJson(v, 0, ctx, next);
}

/** The last record's first three fields as JSON, and what they were made of. */
const lastHead = {
  timestamp: "",
  level: "",
  message: "",
  ctx: null as WalkContext | null,
  json: "",
};

/**
 * `{"timestamp":…,"level":…,"message":…` of `record`. Records logged in the same
 * millisecond at one level with one message (a busy loop's) share it: the last one's text
 * is reused for the same three strings under the same walk context and no path rules.
 */
function headJson(record: LogRecord, ctx: WalkContext, states: PathStates | null): string {
  const { timestamp, level, message } = record;
  const last = lastHead;
  if (
    states === null &&
    ctx === last.ctx &&
    timestamp === last.timestamp &&
    level === last.level &&
    message === last.message
  )
    return last.json;
  const json = `{"timestamp":${recentJson(timestamp, ctx, recentTimestamp)},"level":${recentJson(level, ctx, recentLevel)},"message":${messageJson(message, ctx, states)}`;
  if (
    states === null &&
    typeof timestamp === "string" &&
    typeof level === "string" &&
    typeof message === "string"
  ) {
    last.timestamp = timestamp;
    last.level = level;
    last.message = message;
    last.ctx = ctx;
    last.json = json;
  }
  return json;
}

let lastMessage = "";
let lastMessageCtx: WalkContext | null = null;
let lastMessageJson = "";

/**
 * JSON text of the message field. Most calls log a constant message: the last one's text
 * is reused for the same string under the same walk context.
 */
function messageJson(v: unknown, ctx: WalkContext, states: PathStates | null): string {
  if (v === lastMessage && ctx === lastMessageCtx && states === null) return lastMessageJson;
  const json = fieldJson("message", fieldText(v), ctx, states)!; // a string is never dropped
  if (typeof v === "string" && states === null) {
    lastMessage = v;
    lastMessageCtx = ctx;
    lastMessageJson = json;
  }
  return json;
}

/** The last text seen in one structural field and its JSON: consecutive records mostly share them. */
interface Recent {
  text: string;
  json: string;
}
const recentTimestamp: Recent = { text: "", json: '""' };
const recentLevel: Recent = { text: "", json: '""' };

/** JSON text of `structuralText(v, ctx)`, reusing `recent` for the same text. */
function recentJson(v: unknown, ctx: WalkContext, recent: Recent): string {
  if (v === recent.text && recent.text.length <= ctx.maxString) return recent.json;
  const json = structuralJson(v, ctx);
  if (typeof v === "string" && v.length <= ctx.maxString) {
    recent.text = v;
    recent.json = json;
  }
  return json;
}

/** JSON text of `structuralText(v, ctx)`. */
function structuralJson(v: unknown, ctx: WalkContext): string {
  if (typeof v === "string" && v.length <= ctx.maxString && v.length <= PLAIN_CHECK_MAX) {
    if (isPlainAscii(v)) return `"${v}"`;
  }
  return JSON.stringify(structuralText(v, ctx));
}

/**
 * JSON text of one record field's value on its own, with the paths that apply to that
 * field (a child logger's bindings, serialised once in `child()`); undefined when the
 * walk drops the value.
 * @example serializeField("bindings", { requestId: "r-1" }, { redact }) // '{"requestId":"r-1"}'
 */
export function serializeField(
  name: string,
  value: unknown,
  opts: SanitizeOptions = {},
): string | undefined {
  const ctx = contextFor(opts);
  return fieldJson(name, value, ctx, ctx.plan === null ? null : initialStates(ctx.plan.paths));
}

/**
 * `serializeField("bindings", bindings, opts)`, the same text: a flat plain object (a
 * child logger's `{ requestId }`) takes flat-bindings.ts, anything else the full walk.
 * @example serializeBindings({ requestId: "r-1" }, { redact }) // '{"requestId":"r-1"}'
 */
export function serializeBindings(
  bindings: Record<string, unknown>,
  opts: SanitizeOptions = {},
): string | undefined {
  const ctx = contextFor(opts);
  return (
    flatBindingsJson(bindings, ctx) ??
    fieldJson("bindings", bindings, ctx, ctx.plan === null ? null : initialStates(ctx.plan.paths))
  );
}

/**
 * A redacted, plain copy of `record`: its line, parsed.
 * @example sanitizeRecord(record, { redact: compileRedaction({}) })
 */
export function sanitizeRecord(record: LogRecord, opts: SanitizeOptions = {}): LogRecord {
  return JSON.parse(serializeRecord(record, opts)) as LogRecord;
}

/**
 * One record field's value on its own as a plain copy: `serializeField`'s text, parsed.
 * @example const b = sanitizeField("bindings", { requestId, token }, { redact });
 */
export function sanitizeField(name: string, value: unknown, opts: SanitizeOptions = {}): unknown {
  return parsed(serializeField(name, value, opts));
}

/**
 * Any value → plain JSON-safe data with the caps and key/pattern redaction of `opts` (no
 * record paths: the value is no record field), or undefined when the walk drops it.
 * @example sanitizeValue({ n: 1n, f() {} }) // { n: "1" }
 */
export function sanitizeValue(value: unknown, opts: SanitizeOptions = {}): unknown {
  return parsed(writeJson(value, 0, contextFor(opts), null));
}

function parsed(json: string | undefined): unknown {
  return json === undefined ? undefined : (JSON.parse(json) as unknown);
}

function fallbackLine(record: LogRecord): string {
  const ctx = createContext({ maxStringLength: 64 });
  let timestamp = "";
  let level = "";
  try {
    timestamp = structuralText(record.timestamp, ctx);
    level = structuralText(record.level, ctx);
  } catch {
    // keep the empty defaults
  }
  return JSON.stringify({ timestamp, level, message: UNSERIALIZABLE });
}
