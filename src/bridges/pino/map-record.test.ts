/** pino line → Stowage record, in-process. */
import { describe, expect, it } from "vitest";
import { mapPinoLine, pinoLevel } from "./map-record.js";

describe("pino line mapping", () => {
  it("numeric levels map onto Stowage's levels, custom levels fall between", () => {
    expect([10, 20, 25, 30, 40, 50, 60, 70].map(pinoLevel)).toEqual([
      "trace",
      "debug",
      "debug",
      "info",
      "warning",
      "error",
      "critical",
      "critical",
    ]);
    expect(pinoLevel("nope")).toBe("trace");
    expect(pinoLevel("40")).toBe("warning");
  });

  it("without nestedKey: pid/hostname/name are bindings, other keys data, err → error with name, trace ids lifted", () => {
    const rec = mapPinoLine(
      {
        level: 50,
        time: 0,
        msg: "failed",
        pid: 1,
        hostname: "h",
        orderId: 7,
        trace_id: "t1",
        spanId: "s1",
        err: { type: "TypeError", message: "bad", stack: "TypeError: bad" },
      },
      {},
    );
    expect(rec).toEqual({
      level: "error",
      timestamp: "1970-01-01T00:00:00.000Z",
      message: "failed",
      bindings: { pid: 1, hostname: "h" },
      data: { orderId: 7 },
      traceId: "t1",
      spanId: "s1",
      error: { name: "TypeError", message: "bad", stack: "TypeError: bad" },
    });
  });

  it("with nestedKey: that key is data (an err inside it becomes the error), every other key a binding", () => {
    const rec = mapPinoLine(
      {
        level: 30,
        time: "2026-01-02T03:04:05.000Z",
        text: "hi",
        reqId: "r",
        payload: { a: 1, oops: { type: "Error", message: "m" } },
      },
      { nestedKey: "payload", messageKey: "text", errorKey: "oops" },
    );
    expect(rec).toEqual({
      level: "info",
      timestamp: "2026-01-02T03:04:05.000Z",
      message: "hi",
      bindings: { reqId: "r" },
      data: { a: 1 },
      error: { name: "Error", message: "m" },
    });
  });

  it("a missing message is empty, a non-object err and one that already has a name are kept as is", () => {
    expect(mapPinoLine({ level: 30, time: 5, err: "plain" }, {})).toMatchObject({
      message: "",
      error: "plain",
    });
    const named = { type: "X", name: "Y", message: "m" };
    expect(mapPinoLine({ level: 30, time: 5, err: named }, {}).error).toBe(named);
    expect(
      mapPinoLine({ level: 30, time: 5, custom: 1 }, { bindingKeys: ["custom"] }),
    ).toMatchObject({ bindings: { custom: 1 } });
  });
});
