/**
 * Issue 34 item 3, hostile cases of the OTLP/HTTP connector, against the real collector
 * (through a recording proxy where the answer is chosen) and the real MinIO: foreign
 * endpoints refused by the endpoint policy, header values never printed, 500/429/400/no
 * answer from the receiver, a burst past the connector's queue, records OTLP would refuse.
 */
import { inspect } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createLogger,
  type ConnectorResult,
  type LoggerConfig,
  type LoggerEvent,
} from "../../src/index.js";
import { resolveLoggerConfig } from "../../src/config/logger-config.js";
import { s3Config, s3Reader } from "../support/loggers.js";
import { uniquePrefix } from "../support/minio.js";
import {
  startOtelcol,
  startOtlpProxy,
  type CollectedRecord,
  type OtlpProxy,
  type RunningOtelcol,
} from "../support/otelcol.js";
import { readBack } from "../support/read-back.js";
import { runStowage } from "../support/cli.js";
import { s3YamlConfig } from "../support/yaml-config.js";
import { rmSync } from "node:fs";

type Rec = Record<string, unknown> & { data?: Record<string, unknown> };

async function bucketLines(prefix: string): Promise<{ records: Rec[]; text: string }> {
  const reader = s3Reader();
  try {
    const objects = await readBack(reader, `${prefix}/`);
    return {
      records: objects.flatMap((o) => o.lines as Rec[]),
      text: objects.map((o) => o.text).join(""),
    };
  } finally {
    reader.close();
  }
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const bucketIds = (rs: Rec[]) => sorted(rs.map((r) => Number(r.data?.id)));
const collectedIds = (rs: CollectedRecord[]) => sorted(rs.map((r) => Number(r.attributes.id)));
const connector = (r: { destinations: Record<string, unknown> }, name = "errors") =>
  r.destinations[name] as ConnectorResult;

function config(prefix: string, errors: Record<string, unknown>): LoggerConfig {
  return {
    ...s3Config(prefix, { flushIntervalMs: 60_000 }),
    connectors: { errors: { type: "otlp-http", flushIntervalMs: 60_000, ...errors } },
  } as unknown as LoggerConfig;
}

function refusal(cfg: unknown): { code: string; message: string } {
  try {
    createLogger(cfg as LoggerConfig)
      .close()
      .catch(() => {});
  } catch (err) {
    return { code: (err as { code: string }).code, message: (err as Error).message };
  }
  throw new Error("the config was accepted");
}

/** A committed YAML: the test bucket plus one `errors` connector at `endpoint`, its header from $STOWAGE_TEST_OTLP_AUTH. */
function doctorConnectorYaml(prefix: string, endpoint: string, options: string[] = []) {
  return s3YamlConfig({
    prefix: uniquePrefix(prefix),
    extra: [
      "connectors:",
      "  errors:",
      "    type: otlp-http",
      `    endpoint: ${endpoint}`,
      ...options.map((o) => `    ${o}`),
      "    headers_env:",
      "      authorization: STOWAGE_TEST_OTLP_AUTH",
    ],
  });
}

describe("hostile: a committed config may not send logs to a foreign host", () => {
  const base = (endpoint: string, extra: object = {}) => ({
    ...s3Config(uniquePrefix("conn-policy")),
    connectors: { errors: { type: "otlp-http", endpoint, ...extra } },
  });

  it.each([
    [
      "a foreign host",
      "http://collector.example.com:4318",
      /collector\.example\.com is neither a loopback/,
    ],
    ["a look-alike of loopback", "http://127.0.0.1.evil.com:4318", /neither a loopback/],
    ["localhost under another domain", "https://localhost.attacker.test", /neither a loopback/],
    [
      "a storage provider's domain (no exemption for connectors)",
      "https://logs.s3.eu-west-1.amazonaws.com",
      /a storage provider's domain is no exemption/,
    ],
  ])("%s is refused, naming the connector and the ways to trust it", (_, endpoint, why) => {
    const r = refusal(base(endpoint));
    expect(r.code).toBe("policy");
    expect(r.message).toMatch(/^connectors\.errors: endpoint /);
    expect(r.message).toMatch(why);
    expect(r.message).toContain("STOWAGE_TRUSTED_ENDPOINTS=");
    expect(r.message).toContain("--trust-endpoint");
    expect(r.message).toContain("trustEndpoint: true");
  });

  it("doctor on a committed YAML naming a foreign receiver: a config error before any probe, exit 2, the header value never printed", async () => {
    const yaml = doctorConnectorYaml("conn-doctor-foreign", "http://collector.example.com:4318");
    try {
      const run = await runStowage(["doctor", "--config", yaml.file], {
        cwd: yaml.dir,
        env: { ...yaml.env, STOWAGE_TEST_OTLP_AUTH: "Bearer foreign-doctor-3a7" },
      });
      const out = run.stdout + run.stderr;
      expect(run.code, out).toBe(2);
      expect(out).toMatch(
        /\[FAIL\] Config \(stowage\.config\.yaml\) -- config error: .*collector\.example\.com/,
      );
      expect(out).not.toMatch(/Connector errors/); // refused at load: no request is made
      expect(out).not.toContain("foreign-doctor-3a7");
    } finally {
      rmSync(yaml.dir, { recursive: true, force: true });
    }
  });

  it("user:password@ in the endpoint is refused without quoting the password", () => {
    const r = refusal(base("http://ann:pw-in-url-7@127.0.0.1:4318"));
    expect(r.code).toBe("policy");
    expect(r.message).not.toContain("pw-in-url-7");
  });

  it("trust comes from outside the committed file: env (and http needs STOWAGE_ALLOW_HTTP), code, never YAML", () => {
    const cfg = base("http://otel.internal:4318");
    const env = { STOWAGE_TRUSTED_ENDPOINTS: "otel.internal" };
    expect(() => resolveLoggerConfig(cfg, { env })).toThrow(/plain http/);
    const ok = resolveLoggerConfig(cfg, { env: { ...env, STOWAGE_ALLOW_HTTP: "1" } });
    expect(ok.connectors[0]!.url).toBe("http://otel.internal:4318/v1/logs");
    const code = base("https://otel.internal", { trustEndpoint: true });
    expect(resolveLoggerConfig(code, { env: {} }).connectors[0]!.url).toBe(
      "https://otel.internal/v1/logs",
    );
    const yaml = {
      connectors: {
        errors: { type: "otlp-http", endpoint: "https://otel.internal", trust_endpoint: true },
      },
    };
    expect(() => resolveLoggerConfig(yaml, { env: {}, origin: "data", file: "s.yaml" })).toThrow(
      /s\.yaml: connectors\.errors: endpoint .*not honoured in a YAML\/JSON file/s,
    );
  });

  it.each([
    [
      "an unknown key",
      { endpiont: "x" },
      /unknown key `endpiont` in connectors\.errors; did you mean `endpoint`/,
    ],
    [
      "an unknown type",
      { type: "otlp-grpc" },
      /`connectors\.errors\.type` must be one of "otlp-http"/,
    ],
    [
      "a header the connector sets",
      { headersEnv: { "Content-Type": "X" } },
      /sets this header itself/,
    ],
    ["a bad level", { level: "loud" }, /connectors\.errors\.level/],
  ])("%s is a config error", (_, extra, message) => {
    const r = refusal(base("http://127.0.0.1:4318", extra));
    expect(r.code).toBe("config");
    expect(r.message).toMatch(message);
  });

  it('"sink" is the destination\'s entry and no connector name', () => {
    const r = refusal({
      ...s3Config(uniquePrefix("conn-policy")),
      connectors: { sink: { type: "otlp-http", endpoint: "http://127.0.0.1:4318" } },
    });
    expect(r.message).toMatch(/"sink" is the destination's entry/);
  });
});

describe("hostile: the connector against a receiver that misbehaves", () => {
  let col: RunningOtelcol;
  let proxy: OtlpProxy;
  beforeAll(async () => {
    col = await startOtelcol();
  }, 600_000); // builds the collector once when it is missing (minutes)
  afterAll(async () => {
    await col?.dispose();
  });
  afterEach(async () => {
    await proxy?.close();
  });

  const retrying = { maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 20 };

  it.each([
    {
      what: "refuses the headers (401, echoing them)",
      rule: (req: { headers: Record<string, unknown> }) => ({
        status: 401,
        body: `{"message":"bad token ${String(req.headers.authorization)}"}`,
      }),
      code: 1,
      verdict:
        /\[FAIL\] Connector errors \(OTLP\/HTTP [^)]+\) -- auth error: AccessDenied \(HTTP 401\)/,
      hint: /authorization from \$STOWAGE_TEST_OTLP_AUTH/,
    },
    {
      what: "has no logs path there (404)",
      rule: () => ({ status: 404, body: "404 page not found" }),
      code: 2,
      verdict: /\[FAIL\] Connector errors .* -- config error: NotFound \(HTTP 404\)/,
      hint: /Stowage adds \/v1\/logs/,
    },
    {
      what: "never answers",
      rule: () => "stall" as const,
      code: 1,
      verdict:
        /\[FAIL\] Connector errors .* -- connectivity error: .*no answer from .* within 300 ms/,
      hint: /is the OTLP receiver running/,
    },
    {
      what: "is down (nothing listens)",
      rule: undefined,
      code: 1,
      verdict: /\[FAIL\] Connector errors .* -- connectivity error: .*ECONNREFUSED/,
      hint: /is the OTLP receiver running/,
    },
  ])(
    "doctor against a receiver that $what: a failed Connector check with its fix, no header value printed, the bucket checks still pass",
    async ({ rule, code, verdict, hint }) => {
      const secret = "Bearer doctor-hostile-5e1";
      proxy = await startOtlpProxy(col.endpoint);
      const endpoint = proxy.endpoint;
      if (rule === undefined)
        await proxy.close(); // its port now refuses connections
      else proxy.setRule((_seq, req) => rule(req));
      const yaml = doctorConnectorYaml("conn-doctor-bad", endpoint, ["request_timeout_ms: 300"]);
      try {
        const run = await runStowage(["doctor", "--config", yaml.file], {
          cwd: yaml.dir,
          env: { ...yaml.env, STOWAGE_TEST_OTLP_AUTH: secret },
        });
        const out = run.stdout + run.stderr;
        expect(run.code, out).toBe(code);
        expect(out).toMatch(verdict);
        expect(out).toMatch(hint);
        expect(out).not.toContain("doctor-hostile-5e1");
        expect(out).toMatch(/\[OK\] +Write probe \(PutObject/);
        expect(out.match(/\[FAIL\]/g)).toHaveLength(1);
        if (rule !== undefined) expect(proxy.requests).toHaveLength(1); // one attempt, no retry
      } finally {
        rmSync(yaml.dir, { recursive: true, force: true });
      }
    },
  );

  it("a header value is sent, and never printed: not in errors, results, inspect output, the resolved config, the bucket or the collector", async () => {
    const secret = "Bearer otlp-secret-9f3c";
    const env = { ...process.env, STOWAGE_TEST_OTLP_AUTH: secret };
    proxy = await startOtlpProxy(col.endpoint);
    // The first request is answered 401 with the request's own header echoed back.
    proxy.setRule((seq, req) =>
      seq === 1
        ? { status: 401, body: `{"message":"bad token ${String(req.headers.authorization)}"}` }
        : undefined,
    );
    const prefix = uniquePrefix("conn-secret");
    const cfg = config(prefix, {
      endpoint: proxy.endpoint,
      headersEnv: { authorization: "STOWAGE_TEST_OTLP_AUTH" },
      ...retrying,
    });
    expect(() => resolveLoggerConfig(cfg, { env: {} })).toThrow(
      /names the environment variable STOWAGE_TEST_OTLP_AUTH, which is not set/,
    );
    const badValue = { STOWAGE_TEST_OTLP_AUTH: `${secret}\r\nX-Injected: 1` };
    const bad = (() => {
      try {
        resolveLoggerConfig(cfg, { env: badValue });
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(bad).toMatch(/holds a line break/);
    expect(bad).not.toContain("otlp-secret");
    const resolved = resolveLoggerConfig(cfg, { env });
    expect(JSON.stringify(resolved)).not.toContain("otlp-secret");

    process.env.STOWAGE_TEST_OTLP_AUTH = secret;
    const events: LoggerEvent[] = [];
    let log;
    try {
      log = createLogger({ ...cfg, onEvent: (e: LoggerEvent) => events.push(e) } as LoggerConfig);
    } finally {
      delete process.env.STOWAGE_TEST_OTLP_AUTH;
    }
    for (let i = 0; i < 10; i++) log.error("first", { id: i });
    const first = await log.flush({ timeoutMs: 20_000 });
    for (let i = 10; i < 20; i++) log.error("second", { id: i });
    const res = await log.close({ timeoutMs: 20_000 });

    expect(proxy.requests.map((r) => r.answer)).toEqual([401, "forwarded"]); // 401: not retried
    expect(proxy.requests.every((r) => r.headers.authorization === secret)).toBe(true);
    const errors = connector(res);
    expect(errors).toMatchObject({ delivered: 10, failed: 10, retries: 0, ok: false });
    expect(errors.failure).toMatchObject({ category: "auth", code: "AccessDenied" });
    expect(errors.failure!.message).toContain("401");
    expect(errors.failure!.message).toContain("bad token [REDACTED]");
    expect(events).toContainEqual({
      type: "connector-failed",
      connector: "errors",
      records: 10,
      error: expect.objectContaining({ message: expect.stringContaining("bad token [REDACTED]") }),
    });
    for (const shown of [
      JSON.stringify(first),
      JSON.stringify(res),
      JSON.stringify(events),
      inspect(log, { depth: 12, showHidden: true }),
    ])
      expect(shown).not.toContain("otlp-secret");
    expect(collectedIds(await col.waitFor(10))).toEqual(range(10, 20));
    const bucket = await bucketLines(prefix);
    expect(bucketIds(bucket.records)).toEqual(range(0, 20));
    expect(bucket.text + JSON.stringify(col.records())).not.toContain("otlp-secret");
  });

  it("500, then 429, then 400 from the receiver: the first two retried once each through the retry policy, the 400 not at all", async () => {
    const before = col.records().length;
    proxy = await startOtlpProxy(col.endpoint);
    const answers: Record<number, { status: number; headers?: Record<string, string> }> = {
      1: { status: 500 },
      3: { status: 429, headers: { "retry-after": "0" } },
      5: { status: 400 },
    };
    proxy.setRule((seq) => answers[seq]);
    const prefix = uniquePrefix("conn-retry");
    const events: LoggerEvent[] = [];
    const log = createLogger({
      ...config(prefix, { endpoint: proxy.endpoint, ...retrying }),
      onEvent: (e: LoggerEvent) => events.push(e),
    } as LoggerConfig);
    const results: ConnectorResult[] = [];
    for (let batch = 0; batch < 4; batch++) {
      for (let i = 0; i < 25; i++) log.error("e", { id: batch * 25 + i });
      results.push(connector(await log.flush({ timeoutMs: 20_000 })));
    }
    const closed = await log.close({ timeoutMs: 20_000 });

    expect(proxy.requests.map((r) => r.answer)).toEqual([
      500,
      "forwarded",
      429,
      "forwarded",
      400,
      "forwarded",
    ]);
    expect(results.map((r) => [r.delivered, r.failed, r.retries])).toEqual([
      [25, 0, 1],
      [50, 0, 2],
      [50, 25, 2],
      [75, 25, 2],
    ]);
    expect(connector(closed).failure).toMatchObject({
      category: "other",
      code: "Http400",
      batches: 1,
    });
    expect(closed.ok).toBe(true);
    expect(closed.destinations.sink).toMatchObject({ ok: true, delivered: 100 });
    // The same retries and give-up reach onEvent as they happen, named by connector.
    expect(events.filter((e) => e.type.startsWith("connector-"))).toEqual([
      {
        type: "connector-retry",
        connector: "errors",
        attempt: 1,
        delayMs: expect.any(Number),
        error: expect.objectContaining({ code: "InternalError" }),
      },
      {
        type: "connector-retry",
        connector: "errors",
        attempt: 1,
        delayMs: expect.any(Number),
        error: expect.objectContaining({ code: "TooManyRequests" }),
      },
      {
        type: "connector-failed",
        connector: "errors",
        records: 25,
        error: expect.objectContaining({ category: "other", code: "Http400" }),
      },
    ]);
    // The destination's own events are not the connector's.
    expect(events.filter((e) => e.type === "retry" || e.type === "latched")).toEqual([]);
    // Retried batches arrive once: the proxy answered the failed attempts itself.
    const got = (await col.waitFor(before + 75)).slice(before);
    expect(collectedIds(got)).toEqual([...range(0, 50), ...range(75, 100)]);
    expect(bucketIds((await bucketLines(prefix)).records)).toEqual(range(0, 100));
  });

  it("a partial success: the records the receiver says it refused are counted failed, the rest delivered (an onEvent that throws changes nothing)", async () => {
    const before = col.records().length;
    proxy = await startOtlpProxy(col.endpoint);
    const partial =
      '{"partialSuccess":{"rejectedLogRecords":"3","errorMessage":"3 records over a backend limit"}}';
    proxy.setRule((seq) => (seq === 1 ? { status: 200, body: partial, forward: true } : undefined));
    const prefix = uniquePrefix("conn-partial");
    let calls = 0;
    const log = createLogger({
      ...config(prefix, { endpoint: proxy.endpoint }),
      onEvent: () => {
        calls++;
        throw new Error("a listener's own bug");
      },
    } as LoggerConfig);
    for (let i = 0; i < 20; i++) log.error("e", { id: i });
    const res = await log.close({ timeoutMs: 20_000 });
    expect(connector(res)).toMatchObject({ delivered: 17, failed: 3, pending: 0, ok: false });
    expect(connector(res).failure).toMatchObject({
      code: "PartialSuccess",
      message: "3 records over a backend limit",
    });
    expect(calls).toBe(1); // the connector-failed event, thrown away by its listener
    // This collector took all 20 (the proxy spoke for a backend that refused 3).
    expect(collectedIds((await col.waitFor(before + 20)).slice(before))).toEqual(range(0, 20));
    expect(bucketIds((await bucketLines(prefix)).records)).toEqual(range(0, 20));
  });

  it("a receiver that never answers: each attempt times out, the batch is given up, S3 is unaffected", async () => {
    proxy = await startOtlpProxy(col.endpoint);
    proxy.setRule(() => "stall");
    const prefix = uniquePrefix("conn-stall");
    const log = createLogger(
      config(prefix, { endpoint: proxy.endpoint, requestTimeoutMs: 200, ...retrying }),
    );
    for (let i = 0; i < 40; i++) log.error("e", { id: i });
    const res = await log.close({ timeoutMs: 20_000 });
    expect(proxy.requests.map((r) => r.answer)).toEqual(["stall", "stall", "stall"]);
    expect(connector(res)).toMatchObject({ delivered: 0, failed: 40, retries: 2, pending: 0 });
    expect(connector(res).failure).toMatchObject({
      category: "connectivity",
      code: "AttemptTimeout",
    });
    expect(res.ok).toBe(true);
    expect(bucketIds((await bucketLines(prefix)).records)).toEqual(range(0, 40));
  });

  it("a burst far past the connector's queue: the queue stays bounded, the rest is counted, accepted records are never evicted", async () => {
    const before = col.records().length;
    const prefix = uniquePrefix("conn-burst");
    const maxQueueBytes = 64 * 1024;
    const log = createLogger(
      config(prefix, { endpoint: col.endpoint, maxQueueBytes, maxBatchBytes: "16KiB" }),
    );
    const N = 20_000;
    for (let i = 0; i < N; i++) log.error("burst", { id: i, path: "/api/orders" });
    log.error("huge", { id: N, blob: "x".repeat(20_000) }); // over maxBatchBytes, under the sink's cap
    const res = await log.close({ timeoutMs: 30_000 });
    const errors = connector(res);
    expect(errors.rejected.oversized).toBe(1);
    expect(errors.delivered + errors.rejected.queueFull).toBe(N);
    expect(errors).toMatchObject({ ok: true, pending: 0, failed: 0 });
    expect(errors.rejected.queueFull).toBeGreaterThan(N / 2);
    expect(res.destinations.sink).toMatchObject({ ok: true, delivered: N + 1 });

    const bucket = await bucketLines(prefix);
    expect(bucketIds(bucket.records)).toEqual(range(0, N + 1));
    // What the connector took is the start of the burst, and it fitted its queue.
    const got = (await col.waitFor(before + errors.delivered)).slice(before);
    expect(collectedIds(got)).toEqual(range(0, errors.delivered));
    const lines = bucket.text.split("\n").filter((l) => l.includes('"burst"'));
    const byId = new Map(lines.map((l) => [(JSON.parse(l) as Rec).data!.id, l]));
    let bytes = 0;
    for (let i = 0; i < errors.delivered; i++) bytes += Buffer.byteLength(byId.get(i)!) + 1;
    expect(bytes).toBeLessThanOrEqual(maxQueueBytes);
    expect(bytes + Buffer.byteLength(byId.get(errors.delivered)!) + 1).toBeGreaterThan(
      maxQueueBytes,
    );
  });

  it("ids OTLP would refuse travel as attributes: one bad record does not sink its request", async () => {
    const before = col.records().length;
    const prefix = uniquePrefix("conn-ids");
    const log = createLogger(config(prefix, { endpoint: col.endpoint }));
    await log.write({
      level: "error",
      message: "bad ids",
      data: { id: 0 },
      traceId: "not-hex",
      spanId: "zz",
    });
    for (let i = 1; i < 5; i++)
      await log.write({
        level: "error",
        message: "ok",
        data: { id: i },
        traceId: "ab".repeat(16),
        spanId: "cd".repeat(8),
      });
    const res = await log.close({ timeoutMs: 20_000 });
    expect(connector(res)).toMatchObject({ ok: true, delivered: 5 });
    const got = (await col.waitFor(before + 5)).slice(before);
    expect(collectedIds(got)).toEqual(range(0, 5));
    const bad = got.find((r) => r.attributes.id === 0)!;
    expect(bad).toMatchObject({ traceId: undefined, spanId: undefined });
    expect(bad.attributes).toMatchObject({ traceId: "not-hex", spanId: "zz" });
    expect(got.filter((r) => r.traceId === "ab".repeat(16))).toHaveLength(4);
    expect(bucketIds((await bucketLines(prefix)).records)).toEqual(range(0, 5));
  });
});
