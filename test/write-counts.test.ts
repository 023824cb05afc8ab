/**
 * counts and calls that never lie — hostile Proxy values,
 * write() usage errors, a refused timestamp that must not stay pending, the
 * `destinations.sink` key, per-logger levels, child bindings serialised once,
 * and typed `onEvent` events with the retry count in the flush result.
 * Both buffers where the behaviour lives in the sink.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger, isStowageError, type DeliveryEvent } from "../src/index.js";
import { startFaultProxy, type FaultProxy } from "./support/fault-proxy.js";
import { localConfig, s3Config } from "./support/loggers.js";
import { minio, uniquePrefix } from "./support/minio.js";
import { readBack } from "./support/read-back.js";

type Cfg = Parameters<typeof createLogger>[0];
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
});

/** A value that throws on every access, and a revoked Proxy. */
function hostile(): unknown[] {
  const trap = () => {
    throw new Error("trap");
  };
  const throwing = new Proxy(
    {},
    {
      get: trap,
      has: trap,
      ownKeys: trap,
      getPrototypeOf: trap,
      getOwnPropertyDescriptor: trap,
    },
  );
  const revocable = Proxy.revocable({}, {});
  revocable.revoke();
  return [throwing, revocable.proxy];
}

function local(buffer: "memory" | "sqlite", delivery: Record<string, unknown> = {}) {
  const { config, store } = localConfig({
    ...(buffer === "sqlite"
      ? { buffer, spoolPath: join(mkdtempSync(join(tmpdir(), "stowage-counts-")), "s.db") }
      : {}),
    ...delivery,
  });
  return { config: config as Cfg, store };
}

async function lines(store: ReturnType<typeof local>["store"]) {
  return (await readBack(store, "")).flatMap((o) => o.lines);
}

describe.each(["memory", "sqlite"] as const)("with the %s buffer", (buffer) => {
  it("a Proxy that throws on every access, as message or data, is stored with the value replaced", async () => {
    const { config, store } = local(buffer);
    const log = createLogger(config);
    let calls = 0;
    for (const v of hostile()) {
      log.info(v);
      log.info("as data", v);
      log.info(v, "pino order");
      log.error(v as Error);
      calls += 4;
    }
    const res = await log.close();
    expect(res.ok).toBe(true);
    expect(res.destinations.sink).toMatchObject({ delivered: calls, pending: 0 });
    const got = await lines(store);
    expect(got).toHaveLength(calls);
    expect(got.filter((l) => l.message === "as data")).toHaveLength(2);
  });

  it("write(null), write(proxy) and write(array) reject with StowageError usage; nothing is counted", async () => {
    const { config } = local(buffer);
    const log = createLogger(config);
    for (const bad of [null, undefined, 42, [], ...hostile()]) {
      const err = await log.write(bad as never).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isStowageError(err, "usage"), String(err)).toBe(true);
    }
    const res = await log.close();
    expect(res.destinations.sink).toMatchObject({ ok: true, delivered: 0, pending: 0 });
  });

  it("a write() refused for its timestamp leaves nothing pending: later flushes stay ok", async () => {
    const { config } = local(buffer);
    const log = createLogger(config);
    await expect(
      log.write({ level: "info", message: "far", timestamp: "2999-01-01T00:00:00.000Z" }),
    ).rejects.toMatchObject({ code: "usage" });
    await log.write({ level: "info", message: "fine" });
    const res = await log.close();
    expect(res.ok).toBe(true);
    expect(res.destinations.sink).toMatchObject({
      kind: "local",
      delivered: 1,
      pending: 0,
      failure: null,
    });
  });
});

describe("levels and children", () => {
  it("each logger has its own level: a child keeps the level it was created with (pino semantics)", async () => {
    const { config, store } = local("memory");
    const log = createLogger({ ...(config as object), level: "info" } as Cfg);
    const early = log.child({ who: "early" });
    log.level = "error";
    const late = log.child({ who: "late" });
    expect(early.level).toBe("info");
    expect(late.level).toBe("error");
    early.info("early info"); // written: early's level is info
    late.info("late info"); // dropped
    log.info("parent info"); // dropped
    log.error("parent error");
    early.level = "error";
    early.info("early info after"); // dropped: its own level changed
    await log.close();
    const got = (await lines(store)).map((l) => l.message).sort();
    expect(got).toEqual(["early info", "parent error"]);
  });

  it("child bindings are redacted and serialised once, in child(): later mutation does not leak into records", async () => {
    const { config, store } = local("memory");
    const log = createLogger(config);
    const bindings: Record<string, unknown> = { requestId: "r-1", token: "s3cr3t" };
    const child = log.child(bindings).child({ step: 2 });
    bindings.requestId = "changed";
    child.info("one", { n: 1 });
    child.error(new Error("boom"), "two");
    await child.write({ level: "info", message: "three", traceId: "t" });
    await log.close();
    const got = await lines(store);
    expect(got).toHaveLength(3);
    for (const l of got) {
      expect(l.bindings).toEqual({ requestId: "r-1", token: "[REDACTED]", step: 2 });
      expect(Object.keys(l).indexOf("bindings")).toBeGreaterThan(Object.keys(l).indexOf("message"));
    }
    const two = got.find((l) => l.message === "two")!;
    expect(Object.keys(two).slice(-2)).toEqual(["bindings", "error"]); // canonical field order
  });
});

describe("typed events", () => {
  it("retries, rejections and the latch reach onEvent; the flush result counts retries", async () => {
    let puts = 0;
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      r.kind === "put" && ++puts <= 2 ? "slowdown" : undefined,
    );
    proxies.push(proxy);
    const events: DeliveryEvent[] = [];
    const prefix = uniquePrefix("events");
    const log = createLogger({
      ...s3Config(
        prefix,
        { maxRecordBytes: 2048, initialBackoffMs: 10, maxBackoffMs: 50 },
        { endpoint: proxy.endpoint },
      ),
      onEvent: (e: DeliveryEvent) => events.push(e),
    } as Cfg);
    log.info("ok");
    log.info("big", { pad: "x".repeat(4096) });
    const res = await log.close();
    expect(res.ok).toBe(true);
    expect(res.destinations.sink).toMatchObject({ delivered: 1, retries: 2 });
    expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
    expect(events.find((e) => e.type === "retry")).toMatchObject({
      attempt: 1,
      error: { code: "SlowDown" },
    });
    expect(events.filter((e) => e.type === "rejected")).toMatchObject([{ reason: "oversized" }]);

    const latched: DeliveryEvent[] = [];
    const bad = createLogger({
      ...s3Config(uniquePrefix("events-bad"), {}, { secret: "wrong" }),
      onEvent: (e: DeliveryEvent) => latched.push(e),
    } as Cfg);
    bad.info("x");
    await bad.close({ timeoutMs: 20_000 });
    expect(latched.filter((e) => e.type === "latched")).toMatchObject([
      { failure: { category: "auth" } },
    ]);
  });

  it("onEvent that is not a function is a config error naming the fix", () => {
    expect(() => createLogger({ onEvent: 3 } as Cfg)).toThrow(/onEvent must be a function/);
  });
});
