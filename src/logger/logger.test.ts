/** SPEC §3.1–§3.3 through the public logger: never-throw, levels, child, redaction on what lands. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "../index.js";
import { LocalStore } from "../store/local-store.js";
import { readBack } from "../../test/support/read-back.js";

function localLogger(extra: Record<string, unknown> = {}) {
  const path = mkdtempSync(join(tmpdir(), "stowage-logger-"));
  const log = createLogger({
    console: false,
    destination: "local",
    local: { path },
    ...extra,
  } as Parameters<typeof createLogger>[0]);
  return { log, store: new LocalStore({ root: path }) };
}

function hostileValues(): unknown[] {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const getter = Object.defineProperty({}, "boom", {
    enumerable: true,
    get: () => {
      throw new Error("getter");
    },
  });
  const proxy = new Proxy(
    {},
    {
      get: () => {
        throw new Error("trap");
      },
      ownKeys: () => {
        throw new Error("trap");
      },
    },
  );
  const badJson = {
    toJSON: () => {
      throw new Error("toJSON");
    },
  };
  const proto = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as unknown;
  const deep: Record<string, unknown> = {};
  let cur = deep;
  for (let i = 0; i < 200; i++) cur = (cur.n = {}) as Record<string, unknown>;
  const errWithCause = new Error("outer", { cause: new TypeError("inner") });
  (errWithCause as unknown as Record<string, unknown>).code = "E_OUTER";
  const cyclicErr = new Error("cyclic") as Error & { self?: unknown };
  cyclicErr.self = cyclicErr;
  return [
    cyclic,
    getter,
    proxy,
    badJson,
    proto,
    deep,
    errWithCause,
    cyclicErr,
    10n ** 30n,
    Symbol("s"),
    () => 1,
    "x".repeat(200_000),
    "\ud800 lone \udfff",
    undefined,
    null,
    NaN,
    -0,
    Infinity,
    new Date("invalid"),
    new Map([[{}, 1]]),
    new Set([1n]),
    new Uint8Array(10_000),
    Object.create(null),
    [cyclic, [cyclic]],
    { [Symbol("k")]: 1, s: Symbol("v"), f() {} },
    new WeakMap(),
    Promise.resolve(1),
    new (class Weird {
      get x() {
        throw 1;
      }
    })(),
  ];
}

describe("§3.1/§3.2 never throw", () => {
  it("thousands of hostile values through every logging method; every stored line is valid JSON", async () => {
    const { log, store } = localLogger({ level: "trace" });
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
    const values = hostileValues();
    let calls = 0;
    for (let round = 0; round < 20; round++) {
      for (const v of values) {
        for (const m of methods) {
          expect(() => log[m](v as string, v)).not.toThrow();
          expect(() => log[m](`msg ${round}`, v)).not.toThrow();
          calls += 2;
        }
        expect(() => log.child({ v } as Record<string, unknown>).info(v as string)).not.toThrow();
        calls++;
      }
    }
    expect(calls).toBeGreaterThan(5000);
    const res = await log.close({ timeoutMs: 30_000 });
    const d = Object.values(res.destinations)[0]!;
    expect(res.ok).toBe(true);
    const objects = await readBack(store, "");
    const lines = objects.flatMap((o) => o.text.split("\n").slice(0, -1));
    expect(lines.length + d.rejected.oversized).toBe(calls);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 60_000);

  it("levels filter, aliases map, child bindings and errors with causes land as specified", async () => {
    const { log, store } = localLogger({ level: "info", service: "svc" });
    log.debug("hidden");
    log.warn("w");
    log.fatal("f");
    log.child({ requestId: "r1" }).error(new Error("boom", { cause: new Error("root") }));
    log.info({ orderId: 7 }, "pino order");
    log.level = "error";
    log.info("hidden too");
    log.error("shown");
    await log.close();
    const recs = (await readBack(store, "")).flatMap((o) => o.lines);
    const byMsg = new Map(recs.map((r) => [r.message, r]));
    expect([...byMsg.keys()].sort()).toEqual(["boom", "f", "pino order", "shown", "w"]);
    expect(byMsg.get("w")!.level).toBe("warning");
    expect(byMsg.get("f")!.level).toBe("critical");
    expect(byMsg.get("boom")).toMatchObject({
      bindings: { requestId: "r1" },
      service: "svc",
      error: { name: "Error", message: "boom", cause: { message: "root" } },
    });
    expect(byMsg.get("pino order")!.data).toEqual({ orderId: 7 });
  });

  it("§3.3 redaction is applied before anything is stored", async () => {
    const { log, store } = localLogger({
      redact: { keys: ["customerEmail"], paths: ["data.**.ssnLike"] },
    });
    log.info("login Bearer abc.def.ghi with AKIAABCDEFGHIJKLMNOP", {
      accessToken: "t1",
      "refresh-token": "t2",
      API_KEY: "t3",
      nested: { password: { deep: "x" } },
      customer_email: "a@b.c",
      url: "https://user:pass@example.com/x",
      card: "4111 1111 1111 1111",
      a: { b: { ssnLike: "123" } },
      harmless: "author spinner",
    });
    await log.close();
    const text = (await readBack(store, "")).map((o) => o.text).join("");
    for (const secret of [
      "t1",
      "t2",
      "t3",
      '"deep"',
      "a@b.c",
      "user:pass",
      "4111 1111",
      "AKIAABCDEFGHIJKLMNOP",
      "abc.def.ghi",
      '"123"',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain("author spinner");
    expect(text).toContain("[REDACTED]");
  });
});

describe("§3.2 child bindings", () => {
  it("§3.3 a child's and a grandchild's bindings are redacted once by key, path and pattern; the grandchild's own win", async () => {
    const { log, store } = localLogger({
      redact: { paths: ["bindings.user.email"], patterns: ["acme-[0-9]+"] },
    });
    const child = log.child({ requestId: "r-1", password: "p", user: { email: "a@b.c", id: 7 } });
    const grand = child.child({ requestId: "r-2", note: "ticket acme-42 open" });
    child.info("child");
    grand.info("grand");
    await log.close();
    const byMsg = new Map(
      (await readBack(store, "")).flatMap((o) => o.lines).map((r) => [r.message, r]),
    );
    const redactedUser = { email: "[REDACTED]", id: 7 };
    expect(byMsg.get("child")!.bindings).toEqual({
      requestId: "r-1",
      password: "[REDACTED]",
      user: redactedUser,
    });
    expect(byMsg.get("grand")!.bindings).toEqual({
      requestId: "r-2",
      password: "[REDACTED]",
      user: redactedUser,
      note: "ticket [REDACTED:custom] open",
    });
  });

  it("§3.2 logSoon (the adapters' request record) writes the line child(bindings)[level] writes, levels and redaction included", async () => {
    const { log, store } = localLogger({
      level: "info",
      redact: { paths: ["bindings.user.email"], patterns: ["acme-[0-9]+"] },
    });
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXZhbHVl";
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ requestId: "r-1" }, { method: "GET", status: 200, token: "t", note: "acme-7" }],
      [
        { requestId: jwt, user: { email: "a@b.c" } },
        { path: "/x?y=1", durationMs: 0.5 },
      ],
    ];
    const parent = log.child({ tenant: "acme-1", requestId: "outer" });
    let k = 0;
    for (const [bindings, data] of cases)
      for (const [from, level] of [
        [log, "info"],
        [log, "warning"],
        [log, "debug"], // below the logger's level: neither path writes it
        [parent, "error"], // a parent with bindings: merged as child() merges them
      ] as const) {
        const message = `case ${k++}`;
        (from.child(bindings) as unknown as Record<string, (m: string, d: unknown) => void>)[
          level
        ]!(`${message} child`, data);
        from.logSoon(bindings, level, `${message} direct`, data);
        from.child(bindings).logSoon(undefined, level, `${message} own`, data);
      }
    await log.close();
    log.logSoon({ requestId: "late" }, "error", "after close", {}); // never throws, never lands
    const lines = (await readBack(store, "")).flatMap((o) => o.lines);
    const byMsg = new Map(lines.map((r) => [r.message, r]));
    expect(byMsg.has("after close")).toBe(false);
    let compared = 0;
    for (const r of lines) {
      const m = /^(case \d+) child$/.exec(r.message as string);
      if (!m) continue;
      const strip = (x: Record<string, unknown>) =>
        JSON.stringify({ ...x, timestamp: undefined, message: undefined });
      for (const other of ["direct", "own"]) {
        const same = byMsg.get(`${m[1]} ${other}`);
        expect(same, `${m[1]} ${other}`).toBeDefined();
        expect(strip(same!)).toBe(strip(r));
      }
      compared++;
    }
    expect(compared).toBe(6); // 2 cases × (info, warning, error); debug filtered on all paths
    expect(lines).toHaveLength(18);
    const second = byMsg.get("case 4 direct")!;
    expect(second.bindings).toEqual({ requestId: "[REDACTED:jwt]", user: { email: "[REDACTED]" } });
    expect(byMsg.get("case 3 direct")!.bindings).toEqual({
      tenant: "[REDACTED:custom]",
      requestId: "r-1",
    });
  });

  it("§3.2 logSoon waits for the end of the event-loop turn, keeps the time it was called, and flush() and close() write it first", async () => {
    const { log, store } = localLogger({ level: "info" });
    log.logSoon({ requestId: "r-1" }, "info", "soon 1", { n: 1 });
    const called = Date.now();
    while (Date.now() < called + 5); // the rest of the turn takes a while
    log.info("now 1");
    await new Promise((r) => setImmediate(r)); // the turn ends: "soon 1" is written here
    log.info("now 2");
    log.logSoon(undefined, "warning", "soon 2", { n: 2 });
    const flushed = await log.flush(); // the same turn: flush writes it first
    expect(flushed.ok).toBe(true);
    expect(flushed.destinations.sink.delivered).toBe(4);
    log.logSoon(undefined, "error", "soon 3", { n: 3 });
    const closed = await log.close(); // and so does close
    expect(closed.destinations.sink.delivered).toBe(5);
    const objects = await readBack(store, "");
    // One object per flush; in the first, "now 1" precedes "soon 1" (written after the turn's work).
    expect(objects.map((o) => o.lines.map((r) => r.message)).sort()).toEqual([
      ["now 1", "soon 1", "now 2", "soon 2"],
      ["soon 3"],
    ]);
    const lines = objects.flatMap((o) => o.lines);
    const soon1 = lines.find((r) => r.message === "soon 1")!;
    const now1 = lines.find((r) => r.message === "now 1")!;
    expect(soon1.bindings).toEqual({ requestId: "r-1" });
    expect(Date.parse(soon1.timestamp as string)).toBeLessThanOrEqual(called);
    expect(Date.parse(now1.timestamp as string)).toBeGreaterThanOrEqual(called + 5);
  });

  it("§3.1 bindings that are not plain objects never throw; what lands is valid JSON with object bindings or none", async () => {
    const { log, store } = localLogger();
    const { proxy: revoked, revoke } = Proxy.revocable({ a: 1 }, {});
    revoke();
    const throwing = new Proxy(
      { a: 1 },
      {
        getPrototypeOf: () => {
          throw new Error("trap");
        },
        ownKeys: () => {
          throw new Error("trap");
        },
      },
    );
    class Ctx {
      tenant = "t-1";
    }
    const odd: unknown[] = [revoked, throwing, [1, 2], new Ctx(), "text", null, 42];
    let calls = 0;
    for (const b of odd) {
      const child = log.child(b as Record<string, unknown>);
      expect(() => child.info("child")).not.toThrow();
      expect(() => child.child({ step: 2 }).info("grand")).not.toThrow();
      expect(() =>
        log
          .child({ ok: 1 })
          .child(b as Record<string, unknown>)
          .info("grand2"),
      ).not.toThrow();
      calls += 3;
    }
    await log.close();
    const recs = (await readBack(store, "")).flatMap((o) => o.lines);
    expect(recs).toHaveLength(calls);
    for (const r of recs) if (r.bindings !== undefined) expect(typeof r.bindings).toBe("object");
    // A plain object in a class instance's place keeps its fields.
    expect(recs.some((r) => (r.bindings as Record<string, unknown>)?.tenant === "t-1")).toBe(true);
  });
});

describe("§3.2 write()", () => {
  it("resolves once kept, rejects an oversized record with StowageError rejected (counted), never throws", async () => {
    const path = mkdtempSync(join(tmpdir(), "stowage-logger-"));
    const log = createLogger({
      console: false,
      destination: "local",
      local: { path, delivery: { maxRecordBytes: 1024 } },
    } as Parameters<typeof createLogger>[0]);
    await expect(log.write({ level: "info", message: "kept" })).resolves.toBeUndefined();
    let big: Promise<void> | undefined;
    expect(() => (big = log.write({ level: "info", message: "x".repeat(4096) }))).not.toThrow();
    await expect(big).rejects.toMatchObject({ name: "StowageError", code: "rejected" });
    await expect(
      log.write({ level: "debug", message: "below the level" }),
    ).resolves.toBeUndefined();
    const res = await log.close();
    expect(res.destinations.sink).toMatchObject({
      delivered: 1,
      pending: 0,
      rejected: { oversized: 1 },
    });
    await expect(log.write({ level: "info", message: "late" })).rejects.toMatchObject({
      code: "rejected",
    });
  });

  it("a child's write() keeps the child's bindings under the record's own, which cannot overwrite them", async () => {
    const { log, store } = localLogger();
    const tenant = log.child({ tenant: "acme" });
    await tenant.write({
      message: "ingested",
      bindings: { clientTimestamp: "t1", tenant: "evil" },
    });
    await tenant.write({ message: "no bindings" });
    await tenant.write({ message: "odd bindings", bindings: "x" as never });
    await log.close();
    const lines = (await readBack(store, "")).flatMap((o) => o.lines);
    const by = new Map(lines.map((l) => [l.message, l.bindings]));
    expect(by.get("ingested")).toEqual({ clientTimestamp: "t1", tenant: "acme" });
    expect(by.get("no bindings")).toEqual({ tenant: "acme" });
    expect(by.get("odd bindings")).toEqual({ tenant: "acme" });
  });
});
