import { describe, expect, it } from "vitest";
import { StowageError } from "../shared/errors.js";
import {
  DELIVERY_DEFAULTS,
  GRANT_DEFAULTS,
  resolveLoggerConfig,
  spoolTargetHash,
} from "./logger-config.js";
import { defineConfig } from "./define-config.js";

const cwd = "/srv/app";
const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof StowageError) return e.message;
    throw e;
  }
  throw new Error("expected a StowageError");
};

describe("§2.0 logger config", () => {
  it("§3.2 no config at all: the local-directory store at .stowage/store, §3.5/§5.2 defaults", () => {
    const c = resolveLoggerConfig(undefined, { env: {}, cwd });
    expect(c.destination).toEqual({ type: "local", path: "/srv/app/.stowage/store" });
    expect(c).toMatchObject({ level: "info", console: false, caller: false });
    expect(c.delivery).toMatchObject({ ...DELIVERY_DEFAULTS });
    expect(c.studio.s3).toEqual(GRANT_DEFAULTS);
  });

  it("§2.0 the s3 block with delivery; byte sizes parsed; the spool path derives from the target", () => {
    const c = resolveLoggerConfig(
      defineConfig({
        service: "orders",
        level: "warn",
        destination: "s3",
        s3: {
          bucket: "production-logs",
          prefix: "orders/production",
          region: "eu-west-1",
          delivery: { buffer: "sqlite", maxBatchBytes: "2MiB", concurrency: 4 },
        },
        studio: { s3: { records: 5000, downloadBytes: "1MiB" } },
      }),
      { env: {}, cwd },
    );
    expect(c.destination).toMatchObject({
      type: "s3",
      bucket: "production-logs",
      prefix: "orders/production",
      region: "eu-west-1",
    });
    expect(c.level).toBe("warning");
    expect(c.delivery).toMatchObject({
      buffer: "sqlite",
      maxBatchBytes: 2 * 1024 * 1024,
      concurrency: 4,
      flushIntervalMs: 30_000,
    });
    expect(c.delivery.spoolPath).toMatch(
      new RegExp(`\\.stowage/s3/${spoolTargetHash(c.destination)}\\.db$`),
    );
    expect(c.studio.s3).toMatchObject({ records: 5000, downloadBytes: 1024 * 1024, maxGrants: 5 });
  });

  it("§2.0 the export form of destination is accepted and resolves the same", () => {
    const a = resolveLoggerConfig(
      { destination: { type: "s3", bucket: "logs", prefix: "/a/", region: "eu-west-1" } },
      { env: {}, cwd },
    );
    const b = resolveLoggerConfig(
      { destination: "s3", s3: { bucket: "logs", prefix: "a", region: "eu-west-1" } },
      { env: {}, cwd },
    );
    expect(a.destination).toEqual(b.destination);
    expect(
      resolveLoggerConfig({ destination: { type: "local", path: "logs" } }, { env: {}, cwd })
        .destination,
    ).toEqual({ type: "local", path: "/srv/app/logs" });
  });

  it("§3.2 environment overrides; the endpoint policy still applies to STOWAGE_S3_ENDPOINT", () => {
    const env = {
      STOWAGE_LEVEL: "debug",
      STOWAGE_CONSOLE: "json",
      STOWAGE_DESTINATION: "s3",
      STOWAGE_S3_BUCKET: "env-bucket",
      STOWAGE_S3_PREFIX: "p/q/",
      STOWAGE_S3_REGION: "us-west-2",
    };
    const c = resolveLoggerConfig({ local: { path: "x" } }, { env, cwd });
    expect(c).toMatchObject({
      level: "debug",
      console: "json",
      destination: { type: "s3", bucket: "env-bucket", prefix: "p/q", region: "us-west-2" },
    });
    expect(
      resolveLoggerConfig(
        { s3: { bucket: "b-1", region: "x" } },
        { env: { STOWAGE_DESTINATION: "local" }, cwd },
      ).destination.type,
    ).toBe("local");
    expect(
      message(() =>
        resolveLoggerConfig(
          {},
          { env: { STOWAGE_S3_BUCKET: "b-1", STOWAGE_S3_ENDPOINT: "https://evil.example" }, cwd },
        ),
      ),
    ).toMatch(/refused by the endpoint policy/);
    expect(message(() => resolveLoggerConfig({}, { env: { STOWAGE_LEVEL: "loud" }, cwd }))).toMatch(
      /STOWAGE_LEVEL must be one of/,
    );
    expect(
      message(() => resolveLoggerConfig({}, { env: { STOWAGE_DESTINATION: "s3" }, cwd })),
    ).toMatch(/no `s3:` block/);
  });

  it("§3.2 console defaults to pretty on a TTY outside production", () => {
    expect(resolveLoggerConfig({}, { env: {}, cwd, isTTY: true }).console).toBe("pretty");
    expect(
      resolveLoggerConfig({}, { env: { NODE_ENV: "production" }, cwd, isTTY: true }).console,
    ).toBe(false);
  });

  it("§8 unknown keys at every level, with the closest key; wrong types with the expected type", () => {
    expect(message(() => resolveLoggerConfig({ levl: "info" }, { env: {}, cwd }))).toContain(
      "unknown key `levl` at the top level; did you mean `level`?",
    );
    expect(
      message(() =>
        resolveLoggerConfig(
          { s3: { bucket: "logs", delivery: { flush_interval: 5 } } },
          { env: {}, cwd },
        ),
      ),
    ).toContain("unknown key `flush_interval` in s3.delivery; did you mean `flush_interval_ms`?");
    expect(
      message(() => resolveLoggerConfig({ redact: { key: ["a"] } }, { env: {}, cwd })),
    ).toContain("did you mean `keys`?");
    expect(message(() => resolveLoggerConfig("hello", { env: {}, cwd }))).toBe(
      "`the config` must be a mapping, not a string",
    );
    expect(
      message(() =>
        resolveLoggerConfig(
          { s3: { bucket: "logs", region: "eu-west-1", delivery: { maxBatchBytes: "lots" } } },
          { env: {}, cwd, file: "stowage.config.yaml" },
        ),
      ),
    ).toMatch(/^stowage\.config\.yaml: s3\.delivery\.maxBatchBytes: .* is not a byte size/);
    expect(message(() => resolveLoggerConfig({ caller: "yes" }, { env: {}, cwd }))).toContain(
      "`caller` must be a boolean",
    );
    expect(
      message(() =>
        resolveLoggerConfig(
          { s3: { bucket: "logs", delivery: { concurrency: 0 } } },
          { env: {}, cwd },
        ),
      ),
    ).toContain("`s3.delivery.concurrency` must be greater than 0");
    expect(message(() => resolveLoggerConfig({ console: "loud" }, { env: {}, cwd }))).toContain(
      '`console` must be "pretty", or "json", or false',
    );
  });
});
