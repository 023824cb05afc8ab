/**
 * The write contract of exports against real PostgreSQL and MinIO (SPEC §7.2):
 * commit order and stale `_SUCCESS`, manifest content, size split, validate,
 * incremental cursor, chunked parallel, bounded memory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import type { ResolvedExportConfig } from "../src/export/config.js";
import { parseManifest } from "../src/export/manifest.js";
import { runExport } from "../src/export/runner.js";
import { runConfiguredExport, sourceOpener } from "../src/export/session.js";
import { validateExport } from "../src/export/validate.js";
import { isStowageError } from "../src/shared/errors.js";
import { openStore } from "../src/store/open-store.js";
import type { ObjectStore } from "../src/store/object-store.js";
import { startFaultProxy } from "./support/fault-proxy.js";
import { minioEnv as env, minioExportConfig, readAll } from "./support/export-project.js";
import { minio, uniquePrefix } from "./support/minio.js";
import { PG_URL, pgDrop, pgExec, pgTableName } from "./support/pg.js";

function config(
  exp: Record<string, unknown>,
  prefix: string,
  tuning: Record<string, unknown> = {},
  endpoint = minio().endpoint,
): ResolvedExportConfig {
  return minioExportConfig(
    { type: "postgres", url: PG_URL },
    { name: "orders", ...exp },
    prefix,
    tuning,
    endpoint,
  );
}

async function exists(store: ObjectStore, key: string): Promise<boolean> {
  try {
    await store.head(key);
    return true;
  } catch (err) {
    if (isStowageError(err, "not-found")) return false;
    throw err;
  }
}

/** Delegates to a real store, recording each call and letting a test intercept one. */
function recording(
  inner: ObjectStore,
  hook: (op: string, key: string) => Promise<void> = async () => {},
  options: { reads?: boolean } = {},
) {
  const log: string[] = [];
  const read = (entry: string) => void (options.reads && log.push(entry));
  const store: ObjectStore = {
    description: inner.description,
    put: async (key, body, o) => (
      log.push(`put ${key}`),
      await hook("put", key),
      inner.put(key, body, o)
    ),
    get: (key, o) => (read(`get ${key}`), inner.get(key, o)),
    head: (key, o) => (read(`head ${key}`), inner.head(key, o)),
    list: (o) => (read(`list ${o?.prefix ?? ""}`), inner.list(o)),
    listVersions: (o) => (read(`versions ${o?.prefix ?? ""}`), inner.listVersions(o)),
    delete: async (key, o) => (log.push(`delete ${key}`), inner.delete(key, o)),
    startMultipart: async (key, o) => (
      log.push(`start ${key}`),
      await hook("start", key),
      inner.startMultipart(key, o)
    ),
    uploadPart: (u, n, b, o) => inner.uploadPart(u, n, b, o),
    completeMultipart: async (u, p, o) => (
      log.push(`complete ${u.key}`),
      await hook("complete", u.key),
      inner.completeMultipart(u, p, o)
    ),
    abortMultipart: async (u, o) => (log.push(`abort ${u.key}`), inner.abortMultipart(u, o)),
    listMultipartUploads: (p, o) => (read(`uploads ${p}`), inner.listMultipartUploads(p, o)),
    close: () => inner.close(),
  };
  return { store, log };
}

const rowsCsv = (text: string) => text.trimEnd().split("\r\n").slice(1);

describe("export write contract", () => {
  const big = pgTableName("orders_big");
  const inc = pgTableName("orders_inc");
  const chunked = pgTableName("orders_chunk");
  let store: ObjectStore;

  beforeAll(async () => {
    store = openStore(config({ table: big }, "x").exports[0]!.destination, { env: env() }).store;
    await pgExec(`CREATE TABLE "${big}" AS SELECT g AS id, 'customer-' || (g % 977) AS customer, (g * 7 % 100000) / 100.0 AS amount,
      timestamp '2024-01-01' + g * interval '1 second' AS created_at, md5(g::text) AS note FROM generate_series(1, 120000) g`);
    await pgExec(`CREATE TABLE "${inc}" (id bigint PRIMARY KEY, v text)`);
    await pgExec(`INSERT INTO "${inc}" SELECT g, 'v' || g FROM generate_series(1, 500) g`);
    await pgExec(
      `CREATE TABLE "${chunked}" AS SELECT g AS id, CASE WHEN g % 97 = 0 THEN NULL ELSE g * 3 END AS k FROM generate_series(1, 9000) g`,
    );
  });
  afterAll(async () => {
    store.close();
    await pgDrop(big, inc, chunked);
  });

  it("§7.2 commit order: a stale _SUCCESS is gone before the first part lands; manifests, then _SUCCESS last", async () => {
    const prefix = uniquePrefix("commit");
    const cfg = config({ table: big, format: "csv" }, prefix);
    await store.put(`${prefix}/_SUCCESS`, "stale\n");
    let successAtFirstPart: boolean | undefined;
    const rec = recording(store, async (op, key) => {
      if (successAtFirstPart === undefined && /orders_\d{8}/.test(key))
        successAtFirstPart = await exists(store, `${prefix}/_SUCCESS`);
    });
    const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env(), store: rec.store });
    expect(successAtFirstPart).toBe(false);
    const log = rec.log;
    const at = (s: string) => log.findIndex((l) => l.startsWith(s));
    expect(at(`delete ${prefix}/_SUCCESS`)).toBeGreaterThanOrEqual(0);
    expect(at(`delete ${prefix}/_SUCCESS`)).toBeLessThan(at(`start ${prefix}/orders_`));
    expect(at(`complete ${prefix}/orders_`)).toBeLessThan(
      at(`put ${prefix}/manifest-${r.runId}.json`),
    );
    expect(at(`put ${prefix}/manifest-${r.runId}.json`)).toBeLessThan(
      at(`put ${prefix}/manifest.json`),
    );
    // _SUCCESS is the last write of data or commit files; then the run's in-progress marker goes.
    expect(log[log.length - 2]).toBe(`put ${prefix}/_SUCCESS`);
    expect(log[log.length - 1]).toBe(`delete ${prefix}/_inprogress-orders-${r.runId}.json`);
    expect(at(`put ${prefix}/_inprogress-orders-${r.runId}.json`)).toBeLessThan(
      at(`start ${prefix}/orders_`),
    );
    // The manifest describes exactly what landed, and _SUCCESS holds its SHA-256.
    const manifestBytes = await readAll(store, `${prefix}/manifest.json`);
    expect((await readAll(store, `${prefix}/_SUCCESS`)).toString().trim()).toBe(
      createHash("sha256").update(manifestBytes).digest("hex"),
    );
    expect(await readAll(store, `${prefix}/manifest-${r.runId}.json`)).toEqual(manifestBytes);
    const m = parseManifest(manifestBytes, "manifest.json");
    expect(m).toMatchObject({
      run_id: r.runId,
      export: "orders",
      mode: "full",
      format: "csv",
      compression: "none",
      totals: { rows: 120000, parts: 1 },
    });
    expect(m.schema.map((c) => [c.name, c.type])).toEqual([
      ["id", "int32"],
      ["customer", "string"],
      ["amount", "decimal"],
      ["created_at", "timestamp"],
      ["note", "string"],
    ]);
    const body = await readAll(store, m.parts[0]!.path);
    expect(m.parts[0]).toMatchObject({
      rows: 120000,
      bytes: body.length,
      sha256: createHash("sha256").update(body).digest("hex"),
    });
    expect(body.length).toBeGreaterThan(5 * 1024 * 1024); // went through multipart
    expect(rowsCsv(body.toString()).length).toBe(120000);
    expect((await validateExport(cfg.exports[0]!, { store, depth: "full" })).status).toBe("ok");
  });

  it("§7.2 prepare: the bucket is read while the source connects, and written only once it is open", async () => {
    const prefix = uniquePrefix("prepare");
    const cfg = config({ table: inc, format: "csv" }, prefix);
    const rec = recording(store, undefined, { reads: true });
    let whileConnecting: string[] = [];
    const r = await runExport(cfg.exports[0]!, {
      store: rec.store,
      openSource: async () => {
        const source = await sourceOpener(cfg)();
        whileConnecting = [...rec.log];
        return source;
      },
      sourceType: "postgres",
      tuning: cfg.tuning,
    });
    expect(r.rows).toBe(500);
    // The reads of prepare (dangling uploads, failed runs' markers, the folder's commit)
    // were issued before the connection was up; no write was.
    expect(whileConnecting.some((l) => l.startsWith("uploads "))).toBe(true);
    expect(whileConnecting).toContain(`list ${prefix}/_inprogress-orders-`);
    expect(whileConnecting).toContain(`get ${prefix}/_SUCCESS`);
    expect(whileConnecting.filter((l) => /^(put|delete|start|complete|abort) /.test(l))).toEqual(
      [],
    );
    expect(rec.log.some((l) => l.startsWith("put "))).toBe(true);
  });

  it("§7.2 max_file_size splits into _part{N} objects that together equal the source", async () => {
    const prefix = uniquePrefix("split");
    const cfg = config(
      {
        query: `SELECT * FROM "${big}" WHERE id <= 20000 ORDER BY id`,
        format: "csv",
        max_file_size: "200KB",
      },
      prefix,
      { batch_size: 500 },
    );
    const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env(), store });
    expect(r.parts.length).toBeGreaterThan(5);
    const ids: number[] = [];
    for (const [i, p] of r.parts.entries()) {
      expect(p.path).toMatch(new RegExp(`/orders_\\d{8}_\\d{6}_\\d{3}_part${i + 1}\\.csv$`));
      expect(p.bytes).toBeLessThanOrEqual(200_000);
      const rows = rowsCsv((await readAll(store, p.path)).toString());
      expect(rows.length).toBe(p.rows);
      ids.push(...rows.map((l) => Number(l.split(",")[0])));
    }
    expect(ids).toEqual(Array.from({ length: 20000 }, (_, i) => i + 1));
  });

  it("§7.2 parquet parts split by size each read back, rows summing to the source", async () => {
    const prefix = uniquePrefix("split-pq");
    const cfg = config(
      { query: `SELECT id, note FROM "${big}" WHERE id <= 30000`, max_file_size: "300KB" },
      prefix,
      { batch_size: 1000, row_group_size: 2000 },
    );
    const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env(), store });
    expect(r.parts.length).toBeGreaterThan(1);
    let sum = 0;
    for (const p of r.parts) {
      const b = await readAll(store, p.path);
      const back = await parquetReadObjects({
        file: b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer,
        compressors,
      });
      expect(back.length).toBe(p.rows);
      sum += back.reduce((a, o) => a + Number(o.id), 0);
    }
    expect(sum).toBe((30000 * 30001) / 2);
  });

  it("§7.2 validate: metadata finds a missing part, full depth finds an altered one, no _SUCCESS is incomplete", async () => {
    const prefix = uniquePrefix("validate");
    const cfg = config(
      {
        query: `SELECT * FROM "${big}" WHERE id <= 3000`,
        format: "ndjson",
        max_file_size: "100KB",
      },
      prefix,
      { batch_size: 200 },
    );
    const exp = cfg.exports[0]!;
    const r = await runConfiguredExport(cfg, exp, { env: env(), store });
    expect(await validateExport(exp, { store })).toMatchObject({
      ok: true,
      status: "ok",
      rows: 3000,
      runId: r.runId,
    });
    const victim = r.parts[1]!;
    const original = await readAll(store, victim.path);
    const altered = Buffer.from(original);
    altered[10] = altered[10]! ^ 1;
    await store.put(victim.path, altered);
    expect((await validateExport(exp, { store })).ok).toBe(true); // same size: metadata cannot see it
    const full = await validateExport(exp, { store, depth: "full" });
    expect(full.status).toBe("corrupt");
    expect(full.problems.join()).toContain(`${victim.path} has SHA-256`);
    await store.delete(victim.path);
    expect((await validateExport(exp, { store })).problems).toEqual([
      `part ${victim.path} is missing`,
    ]);
    await store.delete(`${prefix}/_SUCCESS`);
    expect((await validateExport(exp, { store })).status).toBe("incomplete");
  });

  it("§7.2 incremental: the second run exports only new rows; a failed run does not advance the cursor (nor invalidate the folder)", async () => {
    const prefix = uniquePrefix("inc");
    const cfg = config(
      { table: inc, mode: "incremental", cursor_column: "id", format: "ndjson" },
      prefix,
    );
    const exp = cfg.exports[0]!;
    const idsOf = async (key: string) =>
      (await readAll(store, key))
        .toString()
        .trimEnd()
        .split("\n")
        .map((l) => (JSON.parse(l) as { id: number }).id);
    const r1 = await runConfiguredExport(cfg, exp, { env: env(), store });
    expect(r1.rows).toBe(500);
    expect(r1.cursor).toEqual({ column: "id", kind: "int64", from: null, to: "500" });
    const cursorKey = `${prefix}/_cursor-orders.json`;
    expect(JSON.parse((await readAll(store, cursorKey)).toString())).toMatchObject({
      value: "500",
      run_id: r1.runId,
    });

    await pgExec(`INSERT INTO "${inc}" SELECT g, 'v' || g FROM generate_series(501, 520) g`);
    const r2 = await runConfiguredExport(cfg, exp, { env: env(), store });
    expect(await idsOf(r2.parts[0]!.path)).toEqual(Array.from({ length: 20 }, (_, i) => 501 + i));
    expect(r2.cursor).toMatchObject({ from: "500", to: "520" });

    await pgExec(`INSERT INTO "${inc}" SELECT g, 'v' || g FROM generate_series(521, 530) g`);
    const failing = recording(store, async (op, key) => {
      if (op === "put" && key.endsWith("/manifest.json"))
        throw new Error("injected: storage refused the manifest");
    });
    await expect(
      runConfiguredExport(cfg, exp, { env: env(), store: failing.store }),
    ).rejects.toThrow(/injected/);
    // the failed run puts back the _SUCCESS it removed; the folder's manifest.json
    // (runs r1 and r2) still vouches for every row.
    const folder = parseManifest(await readAll(store, `${prefix}/manifest.json`), "manifest.json");
    expect(folder.runs).toEqual([r1.runId, r2.runId]);
    expect(folder.parts.map((p) => p.path)).toEqual([r1.parts[0]!.path, r2.parts[0]!.path]);
    expect(folder).toMatchObject({ run_id: r2.runId, totals: { rows: 520, parts: 2 } });
    expect(folder.cursor).toMatchObject({ from: null, to: "520" });
    expect((await validateExport(exp, { store, depth: "full" })).status).toBe("ok");
    const dataKeys = (await store.list({ prefix: `${prefix}/` })).entries
      .map((e) => e.key)
      .filter((k) => /orders_\d{8}/.test(k));
    expect(dataKeys.sort()).toEqual([r1.parts[0]!.path, r2.parts[0]!.path].sort()); // the failed run cleaned up
    expect(JSON.parse((await readAll(store, cursorKey)).toString())).toMatchObject({
      value: "520",
      run_id: r2.runId,
    });

    const r4 = await runConfiguredExport(cfg, exp, { env: env(), store });
    expect(await idsOf(r4.parts[0]!.path)).toEqual(Array.from({ length: 10 }, (_, i) => 521 + i));
    const r5 = await runConfiguredExport(cfg, exp, { env: env(), store });
    expect(r5.rows).toBe(0); // nothing new: an empty file, the cursor stays
    expect(JSON.parse((await readAll(store, cursorKey)).toString())).toMatchObject({
      value: "530",
      run_id: r4.runId,
    });
  });

  it("§7.2 chunked with parallel: 3 exports every row exactly once, NULL keys included", async () => {
    const prefix = uniquePrefix("chunked");
    const cfg = config(
      {
        table: chunked,
        mode: "chunked",
        chunk_column: "k",
        chunk_size: 2500,
        parallel: 3,
        format: "parquet",
      },
      prefix,
    );
    const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env(), store });
    const ids: number[] = [];
    for (const p of r.parts) {
      expect(p.path).toMatch(/\/orders_\d{8}_\d{6}_chunk\d+_[0-9a-f]{8}\.parquet$/);
      const b = await readAll(store, p.path);
      const back = await parquetReadObjects({
        file: b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer,
        compressors,
      });
      ids.push(...back.map((o) => Number(o.id)));
    }
    expect(ids.length).toBe(9000);
    expect(new Set(ids).size).toBe(9000);
    expect(r.parts.map((p) => p.chunk)).toEqual(
      [...r.parts.map((p) => p.chunk!)].sort((a, b) => a - b),
    );
    const m = parseManifest(await readAll(store, `${prefix}/manifest.json`), "m");
    expect(m.chunks).toMatchObject({
      column: "k",
      size: 2500,
      parallel: 3,
      min: "3",
      max: "27000",
      count: 12,
    });
  });

  it("§7.2 chunked on PostgreSQL: all workers read one snapshot, rows inserted mid-run are not exported", async () => {
    const table = pgTableName("orders_snap");
    await pgExec(
      `CREATE TABLE "${table}" AS SELECT g AS id, g * 3 AS k FROM generate_series(1, 9000) g`,
    );
    try {
      const prefix = uniquePrefix("snapshot");
      const cfg = config(
        { table, mode: "chunked", chunk_column: "k", chunk_size: 500, parallel: 3, format: "csv" },
        prefix,
      );
      let inserted = false;
      const rec = recording(store, async (op, key) => {
        if (!inserted && op === "put" && /_chunk\d+_/.test(key)) {
          inserted = true; // every later chunk would see these rows without a shared snapshot
          await pgExec(
            `INSERT INTO "${table}" SELECT 100000 + g, g * 3 FROM generate_series(1, 9000) g`,
          );
        }
      });
      const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env(), store: rec.store });
      expect(inserted).toBe(true);
      expect(r.rows).toBe(9000);
      const m = parseManifest(await readAll(store, `${prefix}/manifest.json`), "m");
      expect(m.chunks?.shared_snapshot).toBe(true);
    } finally {
      await pgDrop(table);
    }
  });

  it("§7.2 a part upload that fails once is retried; one that keeps failing aborts the upload and commits nothing", async () => {
    const isPart = (r: { method: string; query: URLSearchParams }) =>
      r.method === "PUT" && r.query.has("partNumber");
    let faults = 1;
    const proxy = await startFaultProxy(minio().endpoint, (r) =>
      isPart(r) && faults-- > 0 ? "500" : undefined,
    );
    try {
      const query = `SELECT * FROM "${big}"`;
      const prefix = uniquePrefix("retry");
      const cfg = config({ query, format: "csv" }, prefix, { max_attempts: 3 }, proxy.endpoint);
      const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env() });
      expect(proxy.injected["500"]).toBe(1);
      expect(r.rows).toBe(120000);
      expect((await validateExport(cfg.exports[0]!, { store, depth: "full" })).ok).toBe(true);

      faults = Infinity;
      const prefix2 = uniquePrefix("giveup");
      const cfg2 = config({ query, format: "csv" }, prefix2, { max_attempts: 2 }, proxy.endpoint);
      await expect(runConfiguredExport(cfg2, cfg2.exports[0]!, { env: env() })).rejects.toThrow(
        /export "orders": /,
      );
      expect(await store.listMultipartUploads(`${prefix2}/`)).toEqual([]);
      expect((await store.list({ prefix: `${prefix2}/` })).entries).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it("§7.2 memory: encoder and upload buffers stay within their bounds while the object is many times larger", async () => {
    const prefix = uniquePrefix("memory");
    // md5 per copy: unique text, so the 10k-row groups' dictionaries cannot fold the copies away.
    const query = `SELECT b.*, g AS copy, md5(b.note || g) AS note2 FROM "${big}" b, generate_series(1, 3) g`;
    const cfg = config({ query, format: "parquet", compression: "none" }, prefix, {
      batch_size: 1000,
      row_group_bytes: "512KiB",
      part_size: "5MiB",
      queue_size: 2,
    });
    const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env(), store });
    const encoderBound = 2 * 512 * 1024 + 2 * 1024 * 1024; // 2 × row group + 2 × hand-off chunk
    const writerBound = (2 + 1) * 5 * 1024 * 1024 + 1024 * 1024; // (queueSize + 1) × partSize + one chunk
    expect(r.bytes).toBeGreaterThan(writerBound);
    expect(r.peakEncoderBytes).toBeGreaterThan(0);
    expect(r.peakEncoderBytes).toBeLessThanOrEqual(encoderBound);
    expect(r.peakWriterBytes).toBeLessThanOrEqual(writerBound);
    expect(r.bytes).toBeGreaterThan(4 * encoderBound);
  });
});
