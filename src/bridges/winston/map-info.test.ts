/**
 * winston info → Stowage record, in-process, through a real winston 3 logger: the
 * transport writes into a recording stand-in for the Stowage Logger (its `write`
 * input is what is checked; serialisation is the logger's and tested there).
 */
import { describe, expect, it } from "vitest";
import winston from "winston";
import type { Logger } from "../../logger/logger.js";
import type { FlushResult } from "../../logger/flush-result.js";
import { StowageTransport } from "./transport.js";
import type { WinstonRecord } from "./map-info.js";

const okResult = { ok: true, timedOut: false } as unknown as FlushResult;

function recorder() {
  const records: WinstonRecord[] = [];
  const logger = {
    level: "trace",
    write: (r: WinstonRecord) => {
      records.push(r);
      return Promise.resolve();
    },
    flush: () => Promise.resolve(okResult),
    close: () => Promise.resolve(okResult),
  } as unknown as Logger;
  return { records, logger };
}

function setup(options: winston.LoggerOptions = {}) {
  const { records, logger } = recorder();
  const transport = new StowageTransport({ logger });
  const log = winston.createLogger({ level: "silly", ...options, transports: [transport] });
  return { records, log, transport };
}

describe("winston → Stowage record", () => {
  it("maps the npm levels (http → info, verbose → debug, silly → trace), ignoring colourised names", () => {
    const { records, log } = setup({ format: winston.format.colorize({ all: true }) });
    for (const level of ["error", "warn", "info", "http", "verbose", "debug", "silly"])
      log.log(level, `at ${level}`);
    expect(records.map((r) => r.level)).toEqual([
      "error",
      "warning",
      "info",
      "info",
      "debug",
      "debug",
      "trace",
    ]);
  });

  it("maps syslog levels, a custom level by its rank, and levelMap over both", () => {
    const { records, logger } = recorder();
    const levels = { ...winston.config.syslog.levels, audit: 5 };
    const log = winston.createLogger({
      levels,
      level: "debug",
      transports: [new StowageTransport({ logger, levelMap: { notice: "success" } })],
    });
    for (const level of ["emerg", "alert", "crit", "error", "warning", "notice", "info", "debug"])
      log.log(level, level);
    log.log("audit", "custom");
    expect(records.map((r) => r.level)).toEqual([
      "critical",
      "critical",
      "critical",
      "error",
      "warning",
      "success",
      "info",
      "debug",
      "success", // audit ranks with notice (5): notice's mapping
    ]);
  });

  it("child bindings and defaultMeta → bindings, the call's metadata → data; a call may override a binding", () => {
    const { records, log } = setup({ defaultMeta: { service: "orders" } });
    const child = log.child({ requestId: "r-1", worker: 2 });
    child.child({ step: "pay" }).info("paid", { orderId: 7 });
    child.info("override", { worker: 3 });
    log.info("plain", { a: 1 });
    expect(records[0]).toMatchObject({
      level: "info",
      message: "paid",
      bindings: { service: "orders", requestId: "r-1", worker: 2, step: "pay" },
      data: { orderId: 7 },
    });
    expect(records[1]).toMatchObject({
      bindings: { service: "orders", requestId: "r-1" },
      data: { worker: 3 },
    });
    expect(records[2]).toEqual({
      level: "info",
      message: "plain",
      bindings: { service: "orders" },
      data: { a: 1 },
    });
  });

  it("errors: logger.error(err), an Error as meta, { err }, format.errors and a child's Error keep name, message, stack", () => {
    const { records, log } = setup({ format: winston.format.errors({ stack: true }) });
    const plain = setup();
    const err = Object.assign(new TypeError("bad input"), { code: "E_BAD" });
    log.error(err);
    log.error("failed", err);
    log.error("wrapped", { err, orderId: 1 });
    log.child({ requestId: "r-2" }).error(err);
    plain.log.error(err); // no format: the Error itself reaches the transport
    plain.log.log({ level: "error", message: err as unknown as string });
    const all = [...records, ...plain.records];
    for (const r of all) {
      const e = r.error as { name: string; message: string; stack: string };
      expect(e.name, r.message).toBe("TypeError");
      expect(e.message).toBe("bad input");
      expect(e.stack).toContain("map-info.test.ts");
    }
    expect(records[0]).toMatchObject({ message: "bad input", data: { code: "E_BAD" } });
    expect(records[1]!.message).toBe("failed bad input"); // winston appends the meta's message
    expect(records[1]!.data).toBeUndefined();
    expect(records[2]).toMatchObject({ message: "wrapped", data: { orderId: 1 } });
    expect(records[3]).toMatchObject({ message: "bad input", bindings: { requestId: "r-2" } });
    expect(plain.records[0]).toMatchObject({ message: "bad input" });
    expect(plain.records[0]!.error).toMatchObject({ code: "E_BAD" });
    expect(plain.records[0]!.data).toBeUndefined();
    expect(plain.records[1]!.message).toBe("bad input");
  });

  it("format.timestamp() becomes the record time; trace_id/span_id are lifted; an object message goes to data", () => {
    const { records, log } = setup({ format: winston.format.timestamp() });
    log.info("traced", { trace_id: "t1", span_id: "s1", trace_flags: "01" });
    log.log({ level: "info", message: { nested: true } } as unknown as winston.LogEntry);
    expect(records[0]).toMatchObject({ traceId: "t1", spanId: "s1", data: { trace_flags: "01" } });
    expect(Date.parse(records[0]!.timestamp!)).toBeGreaterThan(Date.now() - 60_000);
    expect(records[0]!.data).not.toHaveProperty("timestamp");
    expect(records[1]).toMatchObject({ message: "", data: { message: { nested: true } } });
  });

  it("a circular meta and a throwing getter reach the logger without throwing into the app", () => {
    const { records, log } = setup({ format: winston.format((i) => i)() });
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    const hostile = Object.defineProperty({ message: "hostile", level: "info" }, "boom", {
      enumerable: true,
      get() {
        throw new Error("getter");
      },
    });
    expect(() => log.info("cycle", { circular })).not.toThrow();
    expect(() => log.log(hostile)).not.toThrow();
    expect(records[0]!.data).toMatchObject({ circular: { a: 1 } });
    expect(records[1]).toMatchObject({ message: "hostile", data: { boom: "[Unserializable]" } });
  });
});

describe("StowageTransport options", () => {
  const { logger } = recorder();
  it.each([
    ["a misspelt key", { levl: "info" }, /unknown option `levl`; did you mean `level`\?/],
    ["a misspelt config", { confg: {} }, /unknown option `confg`; did you mean `config`\?/],
    ["a logger config key", { s3: {} }, /`s3`: it is a logger config key; put it inside `config`/],
    ["an unrelated key", { zzz: 1 }, /unknown option `zzz`; valid options: config, logger/],
    ["a negative timeout", { flushTimeoutMs: -1 }, /`flushTimeoutMs` must be a whole number/],
    [
      "an unknown level",
      { levelMap: { audit: "loud" } },
      /levelMap.audit`: "loud" is not a log level/,
    ],
    ["a format name", { format: "json" }, /`format` must be a winston format/],
    ["both logger and config", { config: {} }, /give either `logger` or `config`, not both/],
  ])("refuses %s", (_what, options, message) => {
    expect(() => new StowageTransport({ logger, ...options } as never)).toThrow(message);
  });

  it("names every bad key at once, and never quotes a value back", () => {
    let error: Error | undefined;
    try {
      new StowageTransport({ logger, sekret: "hunter2", silent: "yes" } as never);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toMatch(/unknown option `sekret`[\s\S]*`silent` must be true or false/);
    expect(error?.message).not.toContain("hunter2");
  });
});
