// type tests of the public logger surface (SPEC §2.0, §3.2), checked by
// `vitest --typecheck` (part of `npm test`) against the package's entry file.
import { describe, expectTypeOf, it } from "vitest";
import {
  createLogger,
  defineConfig,
  type Logger,
  type ConnectorResult,
  type DestinationResult,
  type FlushResult,
  type Level,
  type LevelName,
  type LoggerConfig,
  type LogRecord,
  type RejectedCounts,
} from "../../src/index.js";

describe("LoggerConfig (SPEC §2.0)", () => {
  it("is a real object type, the parameter of createLogger and the bound of defineConfig", () => {
    expectTypeOf<LoggerConfig>().not.toBeUnknown();
    expectTypeOf<LoggerConfig>().not.toBeAny();
    expectTypeOf(createLogger).parameter(0).toEqualTypeOf<LoggerConfig | undefined>();
    expectTypeOf(createLogger).returns.toEqualTypeOf<Logger>();
  });

  it("accepts the README's configs and refuses wrong shapes", () => {
    expectTypeOf({
      service: "orders",
      destination: "s3",
      s3: { bucket: "production-logs", prefix: "orders/production", region: "eu-west-1" },
    } as const).toExtend<LoggerConfig>();
    expectTypeOf({ level: "warn", console: "json" } as const).toExtend<LoggerConfig>();
    expectTypeOf({ level: "verbose" } as const).not.toExtend<LoggerConfig>();
    expectTypeOf({ service: 42 } as const).not.toExtend<LoggerConfig>();
    expectTypeOf({ console: "loud" } as const).not.toExtend<LoggerConfig>();
  });

  it("defineConfig keeps the literal type it is given", () => {
    const config = defineConfig({ service: "api", level: "debug" });
    expectTypeOf(config.service).toEqualTypeOf<"api">();
    expectTypeOf(config).toExtend<LoggerConfig>();
  });
});

describe("FlushResult (SPEC §3.2)", () => {
  it("has the documented shape", () => {
    expectTypeOf<FlushResult>().toEqualTypeOf<{
      ok: boolean;
      timedOut: boolean;
      destinations: {
        sink: DestinationResult;
        [connector: string]: DestinationResult | ConnectorResult;
      };
    }>();
    expectTypeOf<ConnectorResult["kind"]>().toEqualTypeOf<"otlp-http">();
    expectTypeOf<DestinationResult["kind"]>().toEqualTypeOf<"s3" | "local">();
    expectTypeOf<RejectedCounts>().toEqualTypeOf<{
      oversized: number;
      queueFull: number;
      spoolFull: number;
    }>();
    expectTypeOf<DestinationResult>()
      .pick<"ok" | "delivered" | "pending" | "objects">()
      .toEqualTypeOf<{ ok: boolean; delivered: number; pending: number; objects: number }>();
    expectTypeOf<NonNullable<DestinationResult["failure"]>>().toHaveProperty("category");
    expectTypeOf<NonNullable<DestinationResult["failure"]>>().toHaveProperty("batches");
  });
});

describe("Logger methods (SPEC §3.2)", () => {
  const log = createLogger();
  const methods = [
    "trace",
    "debug",
    "info",
    "success",
    "warn",
    "warning",
    "error",
    "critical",
    "fatal",
  ] as const;

  it("each level method takes (message, data?), an Error, or pino's (object, message), and returns void", () => {
    for (const m of methods) {
      expectTypeOf(log[m]).returns.toEqualTypeOf<void>();
      expectTypeOf(log[m]).toBeCallableWith("order placed");
      expectTypeOf(log[m]).toBeCallableWith("order placed", { orderId: "o-1" });
      expectTypeOf(log[m]).toBeCallableWith(new Error("declined"));
      expectTypeOf(log[m]).toBeCallableWith("charge failed", new Error("declined"));
      expectTypeOf(log[m]).toBeCallableWith({ orderId: "o-1" }, "order placed");
    }
  });

  it("child, level, write, flush and close", () => {
    expectTypeOf(log.child).parameter(0).toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf(log.child({ requestId: "r-1" })).toEqualTypeOf<Logger>();
    expectTypeOf(log.level).toEqualTypeOf<Level>();
    expectTypeOf<LevelName>().toExtend<string>();
    expectTypeOf<"warn">().toExtend<LevelName>();
    expectTypeOf(log.write).toBeCallableWith({ level: "info", message: "ingested" });
    expectTypeOf(log.write).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<Partial<LogRecord>>().toExtend<Parameters<Logger["write"]>[0]>();
    expectTypeOf(log.flush).returns.toEqualTypeOf<Promise<FlushResult>>();
    expectTypeOf(log.flush).toBeCallableWith({ timeoutMs: 5000 });
    expectTypeOf(log.flush).toBeCallableWith();
    expectTypeOf(log.close).returns.toEqualTypeOf<Promise<FlushResult>>();
  });
});
