/**
 * Issue 34 item 3: outbound connectors beside S3, against a real OpenTelemetry Collector
 * (OTLP/HTTP receiver + file exporter, built from the Go module proxy) and the real MinIO.
 * Each test reads what the collector wrote and what the bucket holds.
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, type ConnectorResult, type LoggerConfig } from "../src/index.js";
import { s3Config, s3Reader } from "./support/loggers.js";
import { uniquePrefix } from "./support/minio.js";
import {
  startOtelcol,
  startOtlpProxy,
  type CollectedRecord,
  type RunningOtelcol,
} from "./support/otelcol.js";
import { readBack } from "./support/read-back.js";
import { runStowage } from "./support/cli.js";
import { s3YamlConfig } from "./support/yaml-config.js";

const DIST = join(import.meta.dirname, "..", "dist", "index.js");

type Rec = Record<string, unknown> & { data?: Record<string, unknown> };

async function bucketRecords(prefix: string): Promise<Rec[]> {
  const reader = s3Reader();
  try {
    return (await readBack(reader, `${prefix}/`)).flatMap((o) => o.lines as Rec[]);
  } finally {
    reader.close();
  }
}

const ids = (records: { id?: unknown }[]) => records.map((r) => Number(r.id)).sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const collectedIds = (rs: CollectedRecord[]) => ids(rs.map((r) => ({ id: r.attributes.id })));

function connectorOf(result: { destinations: Record<string, unknown> }, name: string) {
  return result.destinations[name] as ConnectorResult;
}

function config(prefix: string, connectors: Record<string, unknown>, extra: object = {}) {
  return { ...s3Config(prefix, { flushIntervalMs: 60_000 }), ...extra, connectors } as LoggerConfig;
}

describe("connectors: OTLP/HTTP beside S3 (issue 34 item 3)", () => {
  let col: RunningOtelcol;
  beforeAll(async () => {
    col = await startOtelcol();
  }, 600_000); // builds the collector once when it is missing (minutes)
  afterAll(async () => {
    await col?.dispose();
  });

  it("the same redacted records reach the collector (those at or above its level) and the bucket", async () => {
    const prefix = uniquePrefix("conn-map");
    const before = col.records().length;
    const log = createLogger(
      config(
        prefix,
        {
          errors: { type: "otlp-http", endpoint: col.endpoint, level: "warn", flushIntervalMs: 50 },
        },
        { service: "orders" },
      ),
    );
    const req = log.child({ requestId: "r-1" });
    for (let i = 0; i < 200; i++) log.info("ok", { id: i });
    for (let i = 0; i < 20; i++)
      req.warn("slow", { id: 200 + i, ms: i + 0.5, user: { email: "a@b.c", password: "hunter2" } });
    log.error("charge failed", {
      id: 300,
      err: Object.assign(new Error("declined"), { code: "E_CARD" }),
    });
    await log.write({
      level: "critical",
      message: "traced",
      service: "payments",
      timestamp: "2026-12-01T00:00:00.000Z",
      data: { id: 400, tags: ["a", "b"] },
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
    });
    const res = await log.close({ timeoutMs: 30_000 });

    expect(res.ok).toBe(true);
    expect(res.destinations.sink).toMatchObject({ ok: true, delivered: 222, pending: 0 });
    expect(connectorOf(res, "errors")).toMatchObject({
      kind: "otlp-http",
      ok: true,
      delivered: 22,
      pending: 0,
      failed: 0,
      timedOut: false,
      rejected: { oversized: 0, queueFull: 0 },
      failure: null,
    });

    const bucket = await bucketRecords(prefix);
    expect(ids(bucket.map((r) => r.data ?? {}))).toEqual([...range(0, 220), 300, 400]);
    const mine = (await col.waitFor(before + 22)).slice(before);
    // Exactly the warning-and-above records of the bucket, once each.
    const severe = bucket.filter((r) => ["warning", "error", "critical"].includes(String(r.level)));
    expect(collectedIds(mine)).toEqual(ids(severe.map((r) => r.data ?? {})));
    expect(mine.every((r) => r.severityNumber >= 13 && r.scope === "stowage")).toBe(true);

    // Each collected record maps the bucket's record of the same id.
    for (const b of severe) {
      const c = mine.find((r) => r.attributes.id === (b.data as { id: number }).id)!;
      expect(c.timeUnixNano).toBe(`${Date.parse(String(b.timestamp))}000000`);
      expect(c.severityText).toBe(b.level);
      expect(c.body).toBe(b.message);
    }
    const slow = mine.find((r) => r.attributes.id === 205)!;
    expect(slow).toMatchObject({ service: "orders", severityNumber: 13, body: "slow" });
    expect(slow.attributes).toMatchObject({
      requestId: "r-1",
      ms: 5.5,
      "user.email": "a@b.c",
      "user.password": "[REDACTED]",
    });
    const charge = mine.find((r) => r.attributes.id === 300)!;
    expect(charge).toMatchObject({ severityNumber: 17, severityText: "error" });
    expect(charge.attributes).toMatchObject({ "err.message": "declined", "err.code": "E_CARD" });
    const traced = mine.find((r) => r.attributes.id === 400)!;
    expect(traced).toMatchObject({
      service: "payments",
      severityNumber: 21,
      severityText: "critical",
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      timeUnixNano: `${Date.parse("2026-12-01T00:00:00.000Z")}000000`,
    });
    expect(traced.attributes.tags).toEqual(["a", "b"]);
    // Redacted before anything was queued: the secret is in neither copy.
    expect(readFileSync(col.output, "utf8")).not.toContain("hunter2");
    expect(JSON.stringify(bucket)).not.toContain("hunter2");
  });

  it("an Error as the message fills exception.* on the collector, like `error` in the bucket", async () => {
    const prefix = uniquePrefix("conn-err");
    const before = col.records().length;
    const log = createLogger(
      config(prefix, { errs: { type: "otlp-http", endpoint: col.endpoint } }),
    );
    log.error(Object.assign(new Error("payment declined for conn-err"), { code: "E_PAY" }));
    const res = await log.close({ timeoutMs: 30_000 });
    expect(connectorOf(res, "errs")).toMatchObject({ ok: true, delivered: 1 });
    const [b] = await bucketRecords(prefix);
    const error = b!.error as Record<string, string>;
    const got = (await col.waitFor(before + 1)).slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]!.body).toBe("payment declined for conn-err");
    expect(got[0]!.attributes).toMatchObject({
      "exception.type": error.name,
      "exception.stacktrace": error.stack,
      "exception.code": "E_PAY",
    });
  });

  it("with the collector stopped: S3 delivery is unaffected, the connector's failure is counted in its own entry", async () => {
    const own = await startOtelcol();
    try {
      const prefix = uniquePrefix("conn-down");
      const log = createLogger(
        config(prefix, {
          errors: {
            type: "otlp-http",
            endpoint: own.endpoint,
            maxAttempts: 2,
            initialBackoffMs: 20,
            maxBackoffMs: 50,
          },
        }),
      );
      for (let i = 0; i < 50; i++) log.error("e", { id: i });
      const first = await log.flush({ timeoutMs: 30_000 });
      expect(connectorOf(first, "errors")).toMatchObject({ ok: true, delivered: 50 });
      expect(collectedIds(await own.waitFor(50))).toEqual(range(0, 50));

      await own.stop();
      for (let i = 50; i < 100; i++) log.error("e", { id: i });
      const down = await log.flush({ timeoutMs: 30_000 });
      expect(down.ok).toBe(true); // the destination's verdict: a connector never changes it
      expect(down.destinations.sink).toMatchObject({
        ok: true,
        delivered: 100,
        pending: 0,
        failure: null,
      });
      const errors = connectorOf(down, "errors");
      expect(errors).toMatchObject({
        ok: false,
        delivered: 50,
        failed: 50,
        pending: 0,
        timedOut: false,
      });
      expect(errors.retries).toBe(1); // one batch, two attempts
      expect(errors.failure).toMatchObject({
        category: "connectivity",
        code: "ECONNREFUSED",
        batches: 1,
      });
      expect(ids((await bucketRecords(prefix)).map((r) => r.data ?? {}))).toEqual(range(0, 100));

      // Back up: later records are sent again; the latch still reports what was lost.
      await own.restart();
      for (let i = 100; i < 110; i++) log.error("e", { id: i });
      const back = await log.close({ timeoutMs: 30_000 });
      expect(connectorOf(back, "errors")).toMatchObject({ ok: false, delivered: 60, failed: 50 });
      expect(collectedIds(await own.waitFor(60))).toEqual([...range(0, 50), ...range(100, 110)]);
      expect(back.destinations.sink).toMatchObject({ ok: true, delivered: 110 });
      expect(ids((await bucketRecords(prefix)).map((r) => r.data ?? {}))).toEqual(range(0, 110));
    } finally {
      await own.dispose();
    }
  });

  it("flush and close wait for a failing connector no longer than its flushTimeoutMs", async () => {
    const own = await startOtelcol();
    await own.stop();
    try {
      const prefix = uniquePrefix("conn-bound");
      const log = createLogger(
        config(prefix, {
          errors: {
            type: "otlp-http",
            endpoint: own.endpoint,
            maxAttempts: 5,
            initialBackoffMs: 600_000, // a retry would wait minutes
            maxBackoffMs: 600_000,
            flushTimeoutMs: 1_000,
          },
        }),
      );
      for (let i = 0; i < 30; i++) log.error("e", { id: i });
      const flushed = await log.flush({ timeoutMs: 60_000 });
      expect(flushed.ok).toBe(true);
      expect(flushed.destinations.sink).toMatchObject({ ok: true, delivered: 30 });
      expect(connectorOf(flushed, "errors")).toMatchObject({
        ok: false,
        timedOut: true,
        pending: 30,
        delivered: 0,
      });
      const closed = await log.close({ timeoutMs: 60_000 });
      expect(closed.ok).toBe(true);
      expect(connectorOf(closed, "errors")).toMatchObject({
        ok: false,
        timedOut: true,
        pending: 30,
      });
      expect(ids((await bucketRecords(prefix)).map((r) => r.data ?? {}))).toEqual(range(0, 30));
      expect(own.records()).toEqual([]);
    } finally {
      await own.dispose();
    }
  });
});

describe("connectors from a YAML config in an application process (issue 34 item 3)", () => {
  let col: RunningOtelcol;
  beforeAll(async () => {
    col = await startOtelcol();
  }, 600_000);
  afterAll(async () => {
    await col?.dispose();
  });

  function runApp(cwd: string, body: string, env: Record<string, string>) {
    const file = join(cwd, "main.mjs");
    writeFileSync(file, `import { createLogger } from ${JSON.stringify(DIST)};\n${body}\n`);
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      // Async: the proxy in this process must keep answering while the app runs.
      const child = spawn(process.execPath, [file], {
        cwd,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", ...env },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      child.on("exit", (code) => {
        clearTimeout(killer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  it.each([
    [
      "closes the logger",
      "const r = await log.close({ timeoutMs: 20000 }); console.log(JSON.stringify(r));",
    ],
    ["ends without flush or close (the exit drain sends)", ""],
  ])(
    "an app that %s: snake_case keys, headers from env, records in the collector and the bucket",
    async (_, end) => {
      const proxy = await startOtlpProxy(col.endpoint);
      const prefix = uniquePrefix("conn-yaml");
      const yaml = s3YamlConfig({
        prefix,
        extra: [
          "service: checkout",
          "connectors:",
          "  otel_errors:",
          "    type: otlp-http",
          `    endpoint: ${proxy.endpoint}`,
          "    level: error",
          "    flush_interval_ms: 60000",
          "    headers_env:",
          "      authorization: OTLP_AUTH",
          "      x_tenant_id: OTLP_TENANT",
        ],
      });
      try {
        const before = col.records().length;
        const run = await runApp(
          yaml.dir,
          `const log = createLogger();
         for (let i = 0; i < 300; i++) (i % 3 === 0 ? log.error : log.info)("tick", { id: i });
         ${end}`,
          { ...yaml.env, OTLP_AUTH: "Bearer yaml-secret-1", OTLP_TENANT: "t-42" },
        );
        expect(run.code, run.stderr).toBe(0);
        if (end) {
          const r = JSON.parse(run.stdout) as {
            ok: boolean;
            destinations: Record<string, unknown>;
          };
          expect(r.ok).toBe(true);
          expect(connectorOf(r, "otel_errors")).toMatchObject({
            ok: true,
            delivered: 100,
            pending: 0,
          });
          expect(run.stdout).not.toContain("yaml-secret-1");
        }
        // The header names as written (not camel-cased), the values from the environment.
        expect(proxy.requests.length).toBeGreaterThan(0);
        for (const r of proxy.requests) {
          expect(r.headers.authorization).toBe("Bearer yaml-secret-1");
          expect(r.headers["x_tenant_id"]).toBe("t-42");
          expect(r.headers["content-type"]).toBe("application/json");
        }
        const got = (await col.waitFor(before + 100)).slice(before);
        expect(got.every((r) => r.service === "checkout" && r.severityText === "error")).toBe(true);
        expect(collectedIds(got)).toEqual(range(0, 300).filter((i) => i % 3 === 0));
        expect(ids((await bucketRecords(prefix)).map((r) => r.data ?? {}))).toEqual(range(0, 300));
      } finally {
        await proxy.close();
        rmSync(yaml.dir, { recursive: true, force: true });
      }
    },
  );

  it("an app whose receiver is down and that just ends: it exits on its own after flushTimeoutMs, S3 has every record", async () => {
    const down = await startOtelcol();
    await down.stop();
    const prefix = uniquePrefix("conn-exit");
    const yaml = s3YamlConfig({
      prefix,
      extra: [
        "connectors:",
        "  errors:",
        "    type: otlp-http",
        `    endpoint: ${down.endpoint}`,
        "    max_attempts: 5",
        "    initial_backoff_ms: 600000", // each retry would hold the process for minutes
        "    max_backoff_ms: 600000",
        "    flush_timeout_ms: 500",
      ],
    });
    try {
      const run = await runApp(
        yaml.dir,
        `const log = createLogger();
         for (let i = 0; i < 50; i++) log.error("e", { id: i });`,
        yaml.env,
      );
      expect(run.code, run.stderr).toBe(0); // not killed: the exit drain gave the connector up
      expect(ids((await bucketRecords(prefix)).map((r) => r.data ?? {}))).toEqual(range(0, 50));
      expect(down.records()).toEqual([]);
    } finally {
      await down.dispose();
      rmSync(yaml.dir, { recursive: true, force: true });
    }
  });
  it("stowage doctor probes each connector once with its headers (SPEC §2.5): [OK] when the receiver takes them, no record sent", async () => {
    const proxy = await startOtlpProxy(col.endpoint);
    const yaml = s3YamlConfig({
      prefix: uniquePrefix("conn-doctor"),
      extra: [
        "connectors:",
        "  otel_errors:",
        "    type: otlp-http",
        `    endpoint: ${proxy.endpoint}`,
        "    headers_env:",
        "      authorization: OTLP_AUTH",
      ],
    });
    try {
      const before = col.records().length;
      const run = await runStowage(["doctor", "--config", yaml.file], {
        cwd: yaml.dir,
        env: { ...yaml.env, OTLP_AUTH: "Bearer doctor-secret-7" },
      });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain(
        `[OK]  Connector otel_errors (OTLP/HTTP ${new URL(proxy.endpoint).host})`,
      );
      expect(proxy.requests).toHaveLength(1);
      expect(proxy.requests[0]!.answer).toBe("forwarded");
      expect(proxy.requests[0]!.headers.authorization).toBe("Bearer doctor-secret-7");
      expect(run.stdout + run.stderr).not.toContain("doctor-secret-7");
      // The probe is an empty request: nothing reaches the collector's output.
      await new Promise((r) => setTimeout(r, 500));
      expect(col.records()).toHaveLength(before);
    } finally {
      await proxy.close();
      rmSync(yaml.dir, { recursive: true, force: true });
    }
  });
});
