import { describe, expect, it } from "vitest";
import { resolveExportConfig } from "./config.js";
import { cursorKey, isDataKey, runKeys } from "./naming.js";

const dest = (prefix = "exports/{export}/") => ({
  type: "s3",
  bucket: "data-bucket",
  prefix,
  region: "us-east-1",
});
const base = (exports: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  source: { type: "postgres", url_env: "DATABASE_URL" },
  exports,
  ...extra,
});
const env = { DATABASE_URL: "postgres://u:hunter2@db/x" };
const load = (raw: unknown, e: Record<string, string> = env) =>
  resolveExportConfig(raw, { env: e, file: "export.yaml" });
const fails = (raw: unknown, e: Record<string, string> = env) => {
  try {
    load(raw, e);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected a config error");
};

describe("export config (§7.1)", () => {
  it("§7.1 defaults: parquet + zstd, full mode, tuning in lib-storage vocabulary", () => {
    const cfg = load(base([{ name: "orders", table: "orders", destination: dest() }]));
    expect(cfg.source).toEqual({ type: "postgres", url: env.DATABASE_URL, urlEnv: "DATABASE_URL" });
    expect(cfg.exports[0]).toMatchObject({
      name: "orders",
      mode: "full",
      format: "parquet",
      compression: "zstd",
      parallel: 1,
      prefixTemplate: "exports/orders",
    });
    expect(cfg.tuning).toMatchObject({ batchSize: 2000, partSize: 8 * 1024 * 1024, queueSize: 4 });
  });

  it("§7.1 unknown keys name the closest valid key, at any depth", () => {
    expect(fails(base([{ name: "o", table: "t", formt: "csv", destination: dest() }]))).toMatch(
      /unknown key `formt` in exports\[0\]; did you mean `format`\?/,
    );
    expect(
      fails(base([{ name: "o", table: "t", destination: dest() }], { tuning: { batch_sise: 5 } })),
    ).toMatch(/unknown key `batch_sise`.*did you mean `batch_size`/);
    expect(
      fails(base([{ name: "o", table: "t", destination: { ...dest(), bukcet: "x" } }])),
    ).toMatch(/bukcet.*did you mean `bucket`/);
  });

  it("§7.1 url_env names a missing variable, never a value; exactly one of url/url_env", () => {
    const msg = fails(base([{ name: "o", table: "t", destination: dest() }]), {});
    expect(msg).toContain(
      "source.url_env names DATABASE_URL, but the environment variable DATABASE_URL is not set",
    );
    const both = {
      source: { type: "postgres", url: "postgres://x", url_env: "DATABASE_URL" },
      exports: [{ name: "o", table: "t", destination: dest() }],
    };
    expect(fails(both)).toContain("set exactly one of url_env, url");
    expect(fails(both)).not.toContain("hunter2");
  });

  it("§7.1 export names are filename-safe and unique; exactly one of query/table", () => {
    expect(fails(base([{ name: "../etc", table: "t", destination: dest() }]))).toContain(
      "must be filename-safe",
    );
    expect(fails(base([{ name: "a b", table: "t", destination: dest() }]))).toContain(
      "must be filename-safe",
    );
    expect(fails(base([{ name: "o", destination: dest() }]))).toContain(
      "set exactly one of query or table",
    );
    expect(
      fails(base([{ name: "o", table: "t", query: "SELECT 1", destination: dest() }])),
    ).toContain("set exactly one of query or table");
    expect(
      fails(
        base([
          { name: "o", table: "t", destination: dest("a/") },
          { name: "o", table: "u", destination: dest("b/") },
        ]),
      ),
    ).toContain('"o" is used twice');
  });

  it("§7.1 modes need their keys and refuse the others' keys", () => {
    expect(
      fails(base([{ name: "o", table: "t", mode: "incremental", destination: dest() }])),
    ).toContain("needs cursor_column");
    expect(
      fails(
        base([{ name: "o", table: "t", mode: "chunked", chunk_column: "id", destination: dest() }]),
      ),
    ).toContain("needs chunk_column (numeric) and chunk_size");
    expect(
      fails(base([{ name: "o", table: "t", cursor_column: "id", destination: dest() }])),
    ).toContain("cursor_column does not apply to mode full");
    expect(fails(base([{ name: "o", table: "t", mode: "fulll", destination: dest() }]))).toContain(
      'did you mean "full"',
    );
    const ok = load(
      base([
        {
          name: "o",
          table: "t",
          mode: "chunked",
          chunk_column: "id",
          chunk_size: 1000,
          parallel: 3,
          destination: dest(),
        },
      ]),
    );
    expect(ok.exports[0]).toMatchObject({
      mode: "chunked",
      chunkColumn: "id",
      chunkSize: 1000,
      parallel: 3,
    });
  });

  it("§7.1 compression is checked per format; max_file_size takes a byte size", () => {
    expect(
      fails(
        base([{ name: "o", table: "t", format: "csv", compression: "zstd", destination: dest() }]),
      ),
    ).toContain("compression zstd is not available for csv; use gzip or none");
    expect(
      load(base([{ name: "o", table: "t", format: "ndjson", destination: dest() }])).exports[0]!
        .compression,
    ).toBe("none");
    expect(
      load(base([{ name: "o", table: "t", max_file_size: "256MB", destination: dest() }]))
        .exports[0]!.maxFileBytes,
    ).toBe(256_000_000);
    expect(
      fails(base([{ name: "o", table: "t", max_file_size: "lots", destination: dest() }])),
    ).toContain('"lots" is not a byte size');
  });

  it("§7.1 two exports resolving to the same bucket and prefix are refused; {export} separates them", () => {
    const same = base([
      { name: "a", table: "t", destination: dest("exports/") },
      { name: "b", table: "u", destination: dest("/exports") },
    ]);
    expect(fails(same)).toContain('exports "a" and "b" write to the same bucket and prefix');
    const fine = load(
      base([
        { name: "a", table: "t", destination: dest() },
        { name: "b", table: "u", destination: dest() },
      ]),
    );
    expect(fine.exports.map((e) => e.prefixTemplate)).toEqual(["exports/a", "exports/b"]);
    expect(fails(base([{ name: "a", table: "t", destination: dest("x/{month}/") }]))).toContain(
      "unknown placeholder {month}",
    );
  });

  it("§7.1 a top-level destination is the default; S3 part_size below 5MiB is refused", () => {
    const cfg = load(base([{ name: "a", table: "t" }], { destination: dest() }));
    expect(cfg.exports[0]!.destination).toMatchObject({ type: "s3", bucket: "data-bucket" });
    expect(
      fails(
        base([{ name: "a", table: "t", destination: dest() }], { tuning: { part_size: "1MiB" } }),
      ),
    ).toContain("at least 5MiB");
  });

  it("§2.3 the destination block goes through the shared endpoint policy", () => {
    const foreign = base([
      { name: "a", table: "t", destination: { ...dest(), endpoint: "http://10.1.2.3:9000" } },
    ]);
    expect(() => load(foreign)).toThrow(/10\.1\.2\.3/);
  });
});

describe("naming (§7.2)", () => {
  const at = new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 67));
  it("§7.2 keys: {prefix}{export}_{YYYYMMDD}_{HHMMSS}_{mmm}.{ext}, _part{N}, chunked with nonce", () => {
    const k = runKeys("exports/daily", "orders", "RUN", at, "parquet", "abcd1234");
    expect(k.data(1, false)).toBe("exports/daily/orders_20250102_030405_067.parquet");
    expect(k.data(1, true)).toBe("exports/daily/orders_20250102_030405_067_part1.parquet");
    expect(k.data(3, false)).toBe("exports/daily/orders_20250102_030405_067_part3.parquet");
    expect(k.chunk(2, 1, false)).toBe(
      "exports/daily/orders_20250102_030405_chunk2_abcd1234.parquet",
    );
    expect([k.manifest, k.runManifest, k.success]).toEqual([
      "exports/daily/manifest.json",
      "exports/daily/manifest-RUN.json",
      "exports/daily/_SUCCESS",
    ]);
    expect(runKeys("", "o", "R", at, "csv.gz").data(1, false)).toBe("o_20250102_030405_067.csv.gz");
  });

  it("§7.2 the cursor lives next to the manifest, or before {date}", () => {
    expect(cursorKey("exports/orders", "orders")).toBe("exports/orders/_cursor-orders.json");
    expect(cursorKey("exports/orders/{date}", "orders")).toBe("exports/orders/_cursor-orders.json");
  });

  it("§7.2 dangling-upload detection matches only this export's data keys", () => {
    expect(
      isDataKey("exports/orders/orders_20250102_030405_067.parquet", "exports/orders", "orders"),
    ).toBe(true);
    expect(
      isDataKey(
        "exports/orders/2025-01-02/orders_20250102_030405_chunk1_ab.csv",
        "exports/orders",
        "orders",
      ),
    ).toBe(true);
    expect(
      isDataKey("exports/orders/orders_x_20250102_030405_067.parquet", "exports/orders", "orders"),
    ).toBe(false);
    expect(isDataKey("exports/orders/manifest.json", "exports/orders", "orders")).toBe(false);
    expect(isDataKey("other/orders_20250102_030405_067.parquet", "exports/orders", "orders")).toBe(
      false,
    );
  });
});
