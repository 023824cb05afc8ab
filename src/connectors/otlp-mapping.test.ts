import { describe, expect, it } from "vitest";
import {
  anyValue,
  encodeLogsRequest,
  MAX_ATTRIBUTES,
  parsePartialSuccess,
  toLogRecord,
} from "./otlp-mapping.js";

const attr = (r: ReturnType<typeof toLogRecord>, key: string) =>
  r.attributes.find((a) => a.key === key)?.value;

describe("otlp-mapping", () => {
  it("maps time, level, message, data, bindings, error, caller and ids", () => {
    const r = toLogRecord({
      timestamp: "2026-12-04T10:00:00.123Z",
      level: "warning",
      message: "slow",
      caller: "src/app.ts:42",
      bindings: { requestId: "r-1", user: { id: 7 } },
      data: { ms: 1800.5, tags: ["a", 1], ok: false, nothing: null },
      error: { name: "TypeError", message: "boom", stack: "TypeError: boom\n at x", code: "E1" },
      traceId: "0123456789ABCDEF0123456789abcdef",
      spanId: "0123456789abcdef",
    });
    expect(r.timeUnixNano).toBe(`${Date.parse("2026-12-04T10:00:00.123Z")}000000`);
    expect([r.severityNumber, r.severityText]).toEqual([13, "warning"]);
    expect(r.body).toEqual({ stringValue: "slow" });
    expect(attr(r, "requestId")).toEqual({ stringValue: "r-1" });
    expect(attr(r, "user.id")).toEqual({ intValue: "7" });
    expect(attr(r, "ms")).toEqual({ doubleValue: 1800.5 });
    expect(attr(r, "tags")).toEqual({
      arrayValue: { values: [{ stringValue: "a" }, { intValue: "1" }] },
    });
    expect(attr(r, "ok")).toEqual({ boolValue: false });
    expect(attr(r, "nothing")).toEqual({});
    expect(attr(r, "exception.type")).toEqual({ stringValue: "TypeError" });
    expect(attr(r, "exception.stacktrace")).toEqual({ stringValue: "TypeError: boom\n at x" });
    expect(attr(r, "exception.code")).toEqual({ stringValue: "E1" });
    expect(attr(r, "code.filepath")).toEqual({ stringValue: "src/app.ts" });
    expect(attr(r, "code.lineno")).toEqual({ intValue: "42" });
    expect([r.traceId, r.spanId]).toEqual(["0123456789abcdef0123456789abcdef", "0123456789abcdef"]);
  });

  it("keeps ids OTLP would refuse as attributes, so one record cannot sink its request", () => {
    const r = toLogRecord({
      timestamp: "2026-12-04T10:00:00.000Z",
      level: "info",
      message: "m",
      traceId: "abc",
      spanId: "0000000000000000",
    });
    expect(r.traceId).toBeUndefined();
    expect(r.spanId).toBeUndefined();
    expect(attr(r, "traceId")).toEqual({ stringValue: "abc" });
    expect(attr(r, "spanId")).toEqual({ stringValue: "0000000000000000" });
  });

  it("caps attributes at the SDK's default limit and counts the rest", () => {
    const data = Object.fromEntries(
      Array.from({ length: MAX_ATTRIBUTES + 5 }, (_, i) => [`k${i}`, i]),
    );
    const r = toLogRecord({
      timestamp: "2026-12-04T10:00:00.000Z",
      level: "info",
      message: "m",
      data,
    });
    expect(r.attributes).toHaveLength(MAX_ATTRIBUTES);
    expect(r.droppedAttributesCount).toBe(5);
  });

  it("a non-object data value is one attribute; deep values end as JSON text", () => {
    let deep: unknown = "end";
    for (let i = 0; i < 12; i++) deep = { d: deep };
    const r = toLogRecord({
      timestamp: "2026-12-04T10:00:00.000Z",
      level: "info",
      message: "m",
      data: deep,
    });
    expect(r.attributes).toHaveLength(1);
    expect(r.attributes[0]!.key).toBe("d.d.d.d.d.d.d.d");
    expect(r.attributes[0]!.value).toHaveProperty("stringValue");
    expect(anyValue(Number.MAX_SAFE_INTEGER + 2)).toHaveProperty("doubleValue");
    const s = toLogRecord({
      timestamp: "2026-12-04T10:00:00.000Z",
      level: "info",
      message: "m",
      data: "text",
    });
    expect(attr(s, "data")).toEqual({ stringValue: "text" });
  });

  it("groups records by service and counts lines that are not JSON objects", () => {
    const line = (service?: string) =>
      JSON.stringify({
        timestamp: "2026-12-04T10:00:00.000Z",
        level: "error",
        message: "x",
        ...(service ? { service } : {}),
      });
    const { body, records, invalid } = encodeLogsRequest(
      [line("a"), line("b"), line("a"), line(), "not json", "[1]"],
      "fallback",
      { name: "stowage" },
    );
    expect([records, invalid]).toEqual([4, 2]);
    const req = JSON.parse(body) as {
      resourceLogs: {
        resource: { attributes: { value: { stringValue: string } }[] };
        scopeLogs: { scope: { name: string }; logRecords: unknown[] }[];
      }[];
    };
    const byService = Object.fromEntries(
      req.resourceLogs.map((rl) => [
        rl.resource.attributes[0]!.value.stringValue,
        rl.scopeLogs[0]!.logRecords.length,
      ]),
    );
    expect(byService).toEqual({ a: 2, b: 1, fallback: 1 });
    expect(req.resourceLogs[0]!.scopeLogs[0]!.scope.name).toBe("stowage");
  });

  it("reads OTLP partial success (int64 as string or number), and nothing from other answers", () => {
    expect(parsePartialSuccess('{"partialSuccess":{}}')).toEqual({ count: 0, message: "" });
    expect(parsePartialSuccess('{"partialSuccess":{"rejectedLogRecords":2}}')).toEqual({
      count: 2,
      message: "",
    });
    expect(
      parsePartialSuccess('{"partialSuccess":{"rejectedLogRecords":"5","errorMessage":"x"}}'),
    ).toEqual({ count: 5, message: "x" });
    expect(parsePartialSuccess('{"rejectedLogRecords": broken')).toEqual({ count: 0, message: "" });
    expect(parsePartialSuccess('{"partialSuccess":{"rejectedLogRecords":"-1"}}').count).toBe(0);
  });
});
