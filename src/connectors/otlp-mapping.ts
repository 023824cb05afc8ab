/**
 * Stowage records → an OTLP/JSON `ExportLogsServiceRequest` (opentelemetry-proto
 * logs/v1, JSON encoding: hex trace ids, int64 as strings, enums as numbers).
 *
 * Mapping (docs/connectors.md): timestamp → timeUnixNano; level → severityNumber
 * (trace 1, debug 5, info 9, success 10, warning 13, error 17, critical 21) and
 * severityText (the level's name); message → body; bindings then data → attributes,
 * nested objects flattened with dots (`user.id`), arrays as arrayValue; error →
 * exception.type / exception.message / exception.stacktrace (other fields under
 * `exception.`); caller → code.filepath + code.lineno; traceId/spanId when they are the
 * hex ids OTLP requires (otherwise kept as attributes: an invalid id makes a receiver
 * refuse the whole request); service → the resource's service.name.
 */
import type { Level } from "../record/levels.js";

/** OpenTelemetry SeverityNumber of each level (logs data model). */
export const SEVERITY_NUMBER: Readonly<Record<Level, number>> = {
  trace: 1,
  debug: 5,
  info: 9,
  success: 10,
  warning: 13,
  error: 17,
  critical: 21,
};

/** The OpenTelemetry SDK's default attribute count limit per record. */
export const MAX_ATTRIBUTES = 128;
/** Nesting flattened into dotted names; deeper values are sent as their JSON text. */
const MAX_DEPTH = 8;

export type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: AnyValue[] } }
  | { kvlistValue: { values: KeyValue[] } }
  | Record<string, never>;

export interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface OtlpLogRecord {
  timeUnixNano: string;
  severityNumber: number;
  severityText: string;
  body: AnyValue;
  attributes: KeyValue[];
  droppedAttributesCount?: number;
  traceId?: string;
  spanId?: string;
}

type Json = Record<string, unknown>;

const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/i;
const SPAN_ID = /^(?!0{16})[0-9a-f]{16}$/i;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * One value as an OTLP AnyValue (objects inside arrays as kvlists).
 * @example anyValue(42) // { intValue: "42" }
 */
export function anyValue(v: unknown, depth = 0): AnyValue {
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (typeof v === "number")
    return Number.isSafeInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (v === null || v === undefined) return {};
  if (depth >= MAX_DEPTH) return { stringValue: JSON.stringify(v) };
  if (Array.isArray(v)) return { arrayValue: { values: v.map((x) => anyValue(x, depth + 1)) } };
  if (isObject(v))
    return {
      kvlistValue: {
        values: Object.entries(v).map(([key, x]) => ({ key, value: anyValue(x, depth + 1) })),
      },
    };
  return { stringValue: String(v) };
}

/** Attributes keyed by name: later writes win, and the count stops at MAX_ATTRIBUTES. */
class Attributes {
  readonly map = new Map<string, AnyValue>();
  dropped = 0;

  set(key: string, value: AnyValue): void {
    if (this.map.size >= MAX_ATTRIBUTES && !this.map.has(key)) this.dropped++;
    else this.map.set(key, value);
  }

  /** Plain objects become dotted names; everything else one attribute. */
  flatten(prefix: string, v: unknown, depth = 0): void {
    if (isObject(v) && depth < MAX_DEPTH) {
      const entries = Object.entries(v);
      if (entries.length === 0) this.set(prefix, { kvlistValue: { values: [] } });
      for (const [k, x] of entries) this.flatten(prefix ? `${prefix}.${k}` : k, x, depth + 1);
    } else if (prefix) this.set(prefix, anyValue(v, depth));
  }

  list(): KeyValue[] {
    return [...this.map].map(([key, value]) => ({ key, value }));
  }
}

/**
 * One parsed Stowage record (a line of the v1 format) as an OTLP LogRecord.
 * @example toLogRecord({ timestamp: "2026-01-01T00:00:00.000Z", level: "error", message: "x" }).severityNumber // 17
 */
export function toLogRecord(r: Json): OtlpLogRecord {
  const level = (typeof r.level === "string" ? r.level : "info") as Level;
  const ms = typeof r.timestamp === "string" ? Date.parse(r.timestamp) : NaN;
  const attrs = new Attributes();
  attrs.flatten("", r.bindings);
  if (isObject(r.data)) attrs.flatten("", r.data);
  else if (r.data !== undefined) attrs.set("data", anyValue(r.data));
  if (isObject(r.error)) {
    const { name, message, stack, ...rest } = r.error;
    if (name !== undefined) attrs.set("exception.type", anyValue(name));
    if (message !== undefined) attrs.set("exception.message", anyValue(message));
    if (stack !== undefined) attrs.set("exception.stacktrace", anyValue(stack));
    attrs.flatten("exception", rest);
  }
  if (typeof r.caller === "string") {
    const at = /^(.*):(\d+)$/.exec(r.caller);
    attrs.set("code.filepath", { stringValue: at ? at[1]! : r.caller });
    if (at) attrs.set("code.lineno", { intValue: at[2]! });
  }
  const out: OtlpLogRecord = {
    timeUnixNano: Number.isFinite(ms) && ms > 0 ? `${ms}000000` : "0",
    severityNumber: SEVERITY_NUMBER[level] ?? 0,
    severityText: level,
    body: { stringValue: typeof r.message === "string" ? r.message : String(r.message ?? "") },
    attributes: [],
  };
  if (typeof r.traceId === "string" && TRACE_ID.test(r.traceId))
    out.traceId = r.traceId.toLowerCase();
  else if (r.traceId !== undefined) attrs.set("traceId", anyValue(r.traceId));
  if (typeof r.spanId === "string" && SPAN_ID.test(r.spanId)) out.spanId = r.spanId.toLowerCase();
  else if (r.spanId !== undefined) attrs.set("spanId", anyValue(r.spanId));
  out.attributes = attrs.list();
  if (attrs.dropped > 0) out.droppedAttributesCount = attrs.dropped;
  return out;
}

/**
 * The request body for a batch of record lines: one resourceLogs per service
 * (`service.name`; records without one use `defaultService`, or none). A line that is
 * not a JSON object is counted in `invalid` and left out.
 * @example encodeLogsRequest(['{"timestamp":"…","level":"info","message":"hi"}'], "api").records // 1
 */
export function encodeLogsRequest(
  lines: readonly string[],
  defaultService: string | undefined,
  scope: { name: string; version?: string },
): { body: string; records: number; invalid: number } {
  const byService = new Map<string | undefined, OtlpLogRecord[]>();
  let invalid = 0;
  for (const line of lines) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (!isObject(parsed)) {
      invalid++;
      continue;
    }
    const service = typeof parsed.service === "string" ? parsed.service : defaultService;
    let group = byService.get(service);
    if (group === undefined) byService.set(service, (group = []));
    group.push(toLogRecord(parsed));
  }
  const resourceLogs = [...byService].map(([service, logRecords]) => ({
    resource: {
      attributes:
        service === undefined ? [] : [{ key: "service.name", value: { stringValue: service } }],
    },
    scopeLogs: [{ scope, logRecords }],
  }));
  return { body: JSON.stringify({ resourceLogs }), records: lines.length - invalid, invalid };
}

/**
 * OTLP partial success in a 2xx answer: records the receiver refused, and why.
 * @example parsePartialSuccess('{"partialSuccess":{"rejectedLogRecords":"3","errorMessage":"bad"}}') // { count: 3, message: "bad" }
 */
export function parsePartialSuccess(text: string): { count: number; message: string } {
  if (!text.includes("rejectedLogRecords")) return { count: 0, message: "" };
  try {
    const p = (JSON.parse(text) as { partialSuccess?: Record<string, unknown> }).partialSuccess;
    const count = Number(p?.rejectedLogRecords ?? 0);
    const message = typeof p?.errorMessage === "string" ? p.errorMessage.slice(0, 300) : "";
    return { count: Number.isSafeInteger(count) && count > 0 ? count : 0, message };
  } catch {
    return { count: 0, message: "" };
  }
}
