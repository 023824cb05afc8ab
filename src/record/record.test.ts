import { describe, expect, it } from "vitest";
import { formatTimestamp, parseTimestamp, serializeError } from "./record.js";

describe("record model", () => {
  it("§3.1 timestamps are ISO-8601 UTC with milliseconds and parse back", () => {
    const ms = Date.UTC(2026, 2, 1, 10, 59, 59, 999);
    expect(formatTimestamp(ms)).toBe("2026-03-01T10:59:59.999Z");
    expect(parseTimestamp("2026-03-01T10:59:59.999Z")).toBe(ms);
    expect(parseTimestamp("2026-03-01T12:59:59.999+02:00")).toBe(ms);
    for (const bad of [
      "yesterday",
      "2026-03-01",
      "2026-13-01T00:00:00.000Z",
      "",
      "1772359200000",
    ]) {
      expect(parseTimestamp(bad)).toBeNull();
    }
  });

  it("§3.1 serializeError keeps name, message, stack, code, status, own props and a recursive cause", () => {
    const inner = Object.assign(new TypeError("inner"), { code: "E_INNER" });
    const err = Object.assign(new RangeError("outer", { cause: inner }), {
      statusCode: 503,
      retryable: true,
      n: 5n,
    });
    const s = serializeError(err);
    expect(Object.keys(s).slice(0, 3)).toEqual(["name", "message", "stack"]);
    expect(s).toMatchObject({
      name: "RangeError",
      message: "outer",
      status: 503,
      retryable: true,
      n: "5",
    });
    expect(s.stack).toContain("RangeError: outer");
    expect(s.cause).toMatchObject({ name: "TypeError", message: "inner", code: "E_INNER" });
  });

  it("§3.1 serializeError is cycle-safe (cause loops, self references) and reads AWS $metadata status", () => {
    const a = new Error("a") as Error & { self?: unknown; $metadata?: unknown };
    const b = new Error("b", { cause: a });
    a.cause = b;
    a.self = a;
    a.$metadata = { httpStatusCode: 403 };
    const s = serializeError(a);
    expect(s.self).toBe("[Circular]");
    expect(s.status).toBe(403);
    expect((s.cause as { cause: unknown }).cause).toBe("[Circular]");
    expect(() => JSON.stringify(s)).not.toThrow();
  });

  it("§3.1 serializeError handles AggregateError, throwing getters and non-errors", () => {
    const agg = new AggregateError([new Error("x"), "y"], "many");
    expect(serializeError(agg).errors).toMatchObject([{ name: "Error", message: "x" }, "y"]);
    const hostile = new Error("h");
    Object.defineProperty(hostile, "message", {
      get: () => {
        throw new Error("no");
      },
    });
    Object.defineProperty(hostile, "detail", {
      enumerable: true,
      get: () => {
        throw new Error("no");
      },
    });
    expect(serializeError(hostile)).toMatchObject({
      message: "[Unserializable]",
      detail: "[Unserializable]",
    });
    expect(serializeError("plain text")).toEqual({ name: "NonError", message: "plain text" });
    expect(serializeError(42)).toEqual({ name: "NonError", message: "42" });
    expect(serializeError(undefined)).toEqual({ name: "NonError", message: "undefined" });
    expect(serializeError({ message: "like", code: 7 })).toEqual({
      name: "Error",
      message: "like",
      code: 7,
    });
  });
});
