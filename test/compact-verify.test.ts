/**
 * Issue 32 §1: `stowage verify --compacted` covers compacted hours — row counts against the
 * manifest and its sources, each part's size and SHA-256 (and, at depth full, its bytes and
 * its footer's row count) — and finds a part no manifest commits, a replaced part and a
 * manifest whose counts do not add up. Real MinIO, real CLI.
 */
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { compactLogs } from "../src/compact/index.js";
import { runStowage } from "./support/cli.js";
import { s3Config } from "./support/loggers.js";
import { minio, minioStore, uniquePrefix } from "./support/minio.js";
import { listAll } from "./support/read-back.js";

const DAY = Date.UTC(2026, 10, 3);
const H = 3_600_000;

interface VerifyJson {
  ok: boolean;
  targets: {
    compacted: {
      ok: boolean;
      manifests: number;
      parts: number;
      rows: number;
      failures: { key: string; problems: string[] }[];
    };
  }[];
}

function verify(prefix: string, depth: "metadata" | "full") {
  const m = minio();
  return runStowage(
    [
      "verify",
      "--source",
      `s3://${m.bucket}/${prefix}`,
      "--endpoint",
      m.endpoint,
      "--region",
      m.region,
      "--force-path-style",
      "--access-key-env",
      "AK",
      "--secret-key-env",
      "SK",
      "--from",
      new Date(DAY).toISOString(),
      "--to",
      new Date(DAY + 24 * H - 1).toISOString(),
      "--compacted",
      "--depth",
      depth,
      "--json",
    ],
    { env: { AK: m.accessKeyId, SK: m.secretAccessKey } },
  );
}

async function read(store: ReturnType<typeof minioStore>, key: string): Promise<Buffer> {
  const res = await store.get(key);
  const chunks: Buffer[] = [];
  for await (const c of res.body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe("§1 stowage verify --compacted", () => {
  it("§1 intact compacted hours verify at both depths; an orphan part, a replaced part and a manifest that does not add up are found", async () => {
    const prefix = uniquePrefix("compact-verify");
    const log = createLogger({ ...s3Config(prefix, { maxBatchRecords: 120 }), service: "api" });
    for (let i = 0; i < 1200; i++)
      await log.write({
        timestamp: new Date(DAY + 4 * H + ((i * 7919) % (2 * H))).toISOString(),
        level: "info",
        message: `m${i}`,
        data: { id: i },
      });
    expect((await log.close()).ok).toBe(true);
    const store = minioStore();
    try {
      const out = await compactLogs({
        store,
        prefix,
        fromMs: DAY,
        toMs: DAY + 24 * H,
        nowMs: DAY + 48 * H,
        fileRows: 250,
      });
      expect(out.totals.rows).toBe(1200);
      for (const depth of ["metadata", "full"] as const) {
        const run = await verify(prefix, depth);
        expect(run.code, run.stdout + run.stderr).toBe(0);
        const c = (JSON.parse(run.stdout) as VerifyJson).targets[0]!.compacted;
        expect(c).toMatchObject({
          ok: true,
          manifests: 2,
          parts: out.totals.parts,
          rows: 1200,
          failures: [],
        });
      }
      const keys = await listAll(store, `${prefix}/parquet/`);
      const parts = keys.filter((k) => k.endsWith(".parquet"));
      const manifest = keys.find((k) => k.endsWith("manifest-000001.json"))!;
      // 1. A part of a generation no manifest commits (e.g. copied in by hand).
      const orphan = parts[0]!.replace(/\/g000001-[0-9a-f]{12}-/, "/g000007-0123456789ab-");
      await store.put(orphan, await read(store, parts[0]!));
      // 2. A committed part replaced by other bytes.
      await store.put(parts[1]!, await read(store, parts[2]!));
      // 3. A manifest whose totals do not add up.
      const doc = JSON.parse((await read(store, manifest)).toString()) as {
        totals: { rows: number };
      };
      doc.totals.rows += 1;
      await store.put(manifest, JSON.stringify(doc));
      const run = await verify(prefix, "metadata");
      expect(run.code, run.stdout + run.stderr).toBe(3);
      const failures = (JSON.parse(run.stdout) as VerifyJson).targets[0]!.compacted.failures;
      const byKey = new Map(failures.map((f) => [f.key, f.problems.join(" | ")]));
      expect(byKey.get(orphan)).toMatch(
        /generation 7 that no manifest commits: engines count its rows/,
      );
      expect(byKey.get(parts[1]!)).toMatch(/bytes, the manifest says|SHA-256 differs/);
      expect(byKey.get(manifest)).toMatch(/parts hold \d+ rows, sources gave \d+, totals say \d+/);
    } finally {
      store.close();
    }
  }, 120_000);
});
