/**
 * §3, nothing orphaned and nothing invalidated needlessly: a destination
 * outage mid-run leaves objects that the next run (or `stowage run --cleanup`)
 * removes; a run that cannot reach its source keeps the previous `_SUCCESS`;
 * `manifest.json` of a `{date}` folder with several incremental runs lists them
 * all; `validate` treats `..` in a manifest as an integrity failure (exit 3).
 * Real child processes, real PostgreSQL, real MinIO behind the fault proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { parseManifest } from "../src/export/manifest.js";
import { stamp } from "../src/export/naming.js";
import type { S3Store } from "../src/store/s3-store.js";
import { runStowage } from "./support/cli.js";
import {
  createTable,
  exportEnv,
  exportYaml,
  listAll,
  readAll,
  tmp,
  type TestTable,
} from "./support/export-project.js";
import { startFaultProxy, type FaultProxy } from "./support/fault-proxy.js";
import { minio, minioStore, uniquePrefix } from "./support/minio.js";

let dir: string;
let store: S3Store;
let proxy: FaultProxy;
let table: TestTable;

beforeAll(async () => {
  dir = tmp("cleanup");
  store = minioStore();
  proxy = await startFaultProxy(minio().endpoint);
  table = await createTable("postgres", 20_000);
});
afterAll(async () => {
  await proxy.close();
  await table.drop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Lets `n` data-object PUTs through, then fails every request (a destination outage). */
function outageAfter(n: number): void {
  let seen = 0;
  let down = false;
  proxy.setRule((r) => {
    if (down) return "500";
    if (r.method === "PUT" && /\/orders_\d{8}_/.test(r.path) && ++seen >= n) down = true;
    return undefined;
  });
}

const dataKeys = async (prefix: string) =>
  (await listAll(store, `${prefix}/`)).filter((k) => /\/orders_\d{8}_/.test(k));

describe("nothing orphaned", () => {
  it("an outage mid-run leaves parts; the next run deletes them, and so does run --cleanup", async () => {
    const prefix = uniquePrefix("outage");
    const file = exportYaml(
      dir,
      table,
      "format: csv\nmax_file_size: 16KB",
      prefix,
      "max_attempts: 2",
    );
    const env = exportEnv(proxy.endpoint, table.url);
    const ok = await runStowage(["run", "--config", file, "--json"], { env });
    expect(ok.code, ok.stderr).toBe(0);
    const committed = await dataKeys(prefix);

    outageAfter(3);
    const failed = await runStowage(["run", "--config", file, "--json"], { env });
    proxy.setRule(undefined);
    expect(failed.code).toBe(1);
    const left = (await dataKeys(prefix)).filter((k) => !committed.includes(k));
    expect(left.length).toBeGreaterThanOrEqual(2); // completed parts the outage kept it from deleting
    const markers = await listAll(store, `${prefix}/_inprogress-`);
    expect(markers).toHaveLength(1);

    const next = await runStowage(["run", "--config", file, "--json"], { env });
    expect(next.code, next.stderr).toBe(0);
    const summary = JSON.parse(next.stdout) as {
      exports: { run_id: string; cleaned_runs: string[] }[];
    };
    expect(summary.exports[0]!.cleaned_runs).toHaveLength(1);
    expect(markers[0]).toContain(summary.exports[0]!.cleaned_runs[0]);
    const after = await dataKeys(prefix);
    for (const k of left) expect(after).not.toContain(k);
    expect(await listAll(store, `${prefix}/_inprogress-`)).toEqual([]);

    outageAfter(2);
    expect((await runStowage(["run", "--config", file], { env })).code).toBe(1);
    proxy.setRule(undefined);
    const left2 = (await dataKeys(prefix)).filter((k) => !after.includes(k));
    expect(left2.length).toBeGreaterThanOrEqual(1);
    const clean = await runStowage(["run", "--config", file, "--cleanup"], {
      env: exportEnv(minio().endpoint),
    });
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(/\[OK\] {2}orders: removed \d+ object\(s\) of 1 failed run\(s\)/);
    expect(await dataKeys(prefix)).toEqual(after);
    expect(await listAll(store, `${prefix}/_inprogress-`)).toEqual([]);
    const v = await runStowage(["validate", "--config", file, "--depth", "full"], {
      env: exportEnv(minio().endpoint),
    });
    expect(v.code, v.stdout).toBe(0);
  });

  it("a run that cannot reach its source keeps the previous _SUCCESS (the source is checked first)", async () => {
    const prefix = uniquePrefix("nosource");
    const file = exportYaml(dir, table, "format: ndjson", prefix);
    expect(
      (await runStowage(["run", "--config", file], { env: exportEnv(minio().endpoint, table.url) }))
        .code,
    ).toBe(0);
    const before = await readAll(store, `${prefix}/_SUCCESS`);
    const down = await runStowage(["run", "--config", file], {
      env: exportEnv(minio().endpoint, "postgres://postgres@127.0.0.1:1/test"),
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/export "orders": /);
    expect(await readAll(store, `${prefix}/_SUCCESS`)).toEqual(before);
    const v = await runStowage(["validate", "--config", file], {
      env: exportEnv(minio().endpoint),
    });
    expect(v.code, v.stdout).toBe(0);
  });
});

describe("manifest.json of a folder with several runs", () => {
  it("incremental runs on one {date} folder: manifest.json lists every run; a full run replaces it", async () => {
    const inc = await createTable("postgres", 100);
    const prefix = uniquePrefix("dated");
    const file = exportYaml(
      dir,
      inc,
      "mode: incremental\ncursor_column: id\nformat: csv",
      `${prefix}/{date}`,
    );
    const env = exportEnv(minio().endpoint, inc.url);
    try {
      const day = stamp(new Date()).date;
      const r1 = await runStowage(["run", "--config", file, "--json"], { env });
      await inc.insert(101, 130);
      const r2 = await runStowage(["run", "--config", file, "--json"], { env });
      expect(r2.code, r2.stderr).toBe(0);
      const id = (r: { stdout: string }) =>
        (JSON.parse(r.stdout) as { exports: { run_id: string }[] }).exports[0]!.run_id;
      if (stamp(new Date()).date !== day) return; // the runs straddled midnight: two folders
      const folder = parseManifest(await readAll(store, `${prefix}/${day}/manifest.json`), "m");
      expect(folder.runs).toEqual([id(r1), id(r2)]);
      expect(folder.totals.rows).toBe(130);
      expect(folder.cursor).toMatchObject({ from: null, to: "130" });
      const own = parseManifest(
        await readAll(store, `${prefix}/${day}/manifest-${id(r2)}.json`),
        "m",
      );
      expect(own.totals.rows).toBe(30);
      expect(own.runs).toBeUndefined();
      expect(await listAll(store, `${prefix}/_cursor-orders.json`)).toHaveLength(1); // beside the dated folders
      const v = await runStowage(["validate", "--config", file, "--depth", "full"], {
        env: exportEnv(minio().endpoint),
      });
      expect(v.code, v.stdout).toBe(0);
    } finally {
      await inc.drop();
    }
  });
});

describe("validate", () => {
  it("a manifest naming '..' in run_id or a part path is an integrity failure (exit 3), without the database variable", async () => {
    for (const evil of [{ run_id: "../../x" }, { part: "../outside.csv" }]) {
      const prefix = uniquePrefix("dotdot");
      const file = exportYaml(dir, table, "format: csv", prefix);
      const manifest = {
        version: 1,
        run_id: evil.run_id ?? "01J00000000000000000000000",
        export: "orders",
        mode: "full",
        format: "csv",
        compression: "none",
        source: { type: "postgres" },
        schema: [],
        parts: [
          {
            path: evil.part ? `${prefix}/${evil.part}` : `${prefix}/orders.csv`,
            rows: 0,
            bytes: 0,
            sha256: createHash("sha256").digest("hex"),
          },
        ],
        totals: { rows: 0, bytes: 0, parts: 1 },
        started_at: "2026-01-01T00:00:00.000Z",
        finished_at: "2026-01-01T00:00:00.000Z",
        duration_ms: 0,
      };
      const bytes = Buffer.from(JSON.stringify(manifest));
      await store.put(`${prefix}/manifest.json`, bytes);
      await store.put(
        `${prefix}/_SUCCESS`,
        `${createHash("sha256").update(bytes).digest("hex")}\n`,
      );
      const v = await runStowage(["validate", "--config", file, "--json"], {
        env: exportEnv(minio().endpoint),
      });
      expect(v.code, v.stdout + v.stderr).toBe(3);
      expect(v.stdout).toContain('a path with \\"..\\" is never followed');
    }
  });
});
