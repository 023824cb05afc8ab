/**
 * every storage call of `stowage run`, `validate` and `run --cleanup`
 * survives a throttle. A real fault proxy in front of MinIO answers the first
 * request of each step with 503 SlowDown — `DELETE _SUCCESS`, the in-progress
 * marker, data parts, `PUT manifest-<run>.json`, `PUT manifest.json`,
 * `PUT _SUCCESS`, the cursor, the lists — for PostgreSQL, MariaDB and SQLite
 * sources, in a real child process (a SQLite run used to exit 13 mid-backoff:
 * its retry wait did not hold the process open).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { resolveExportConfig } from "../src/export/config.js";
import { runExport } from "../src/export/runner.js";
import type { StowageError } from "../src/shared/errors.js";
import { openExportStore, sourceOpener } from "../src/export/session.js";
import { parseManifest } from "../src/export/manifest.js";
import { validateExport } from "../src/export/validate.js";
import type { S3Store } from "../src/store/s3-store.js";
import { runStowage } from "./support/cli.js";
import {
  createTable,
  exportEnv,
  exportYaml,
  listAll,
  minioEnv,
  minioExportConfig,
  readAll,
  tmp,
  type SourceKind,
} from "./support/export-project.js";
import { startFaultProxy, type FaultProxy, type ProxiedRequest } from "./support/fault-proxy.js";
import { minio, minioStore, uniquePrefix } from "./support/minio.js";

/** The storage step a request belongs to (method + which export object). */
function step(r: ProxiedRequest): string {
  const key = decodeURIComponent(r.path).split("/").slice(2).join("/");
  const file = key.split("/").pop() ?? "";
  if (r.query.has("uploads") && r.method === "GET") return "list-uploads";
  if (r.kind === "list") return "list";
  const what = file.startsWith("_inprogress-")
    ? "marker"
    : file.startsWith("_cursor-")
      ? "cursor"
      : file.startsWith("manifest-")
        ? "run-manifest"
        : file === "manifest.json" || file === "_SUCCESS"
          ? file
          : /^orders_/.test(file)
            ? "data"
            : "other";
  return `${r.method} ${what}`;
}

/** 503 SlowDown on the first request of every step; the steps faulted are recorded. */
function oncePerStep(proxy: FaultProxy): Set<string> {
  const seen = new Set<string>();
  proxy.setRule((r) => {
    const s = step(r);
    if (seen.has(s)) return undefined;
    seen.add(s);
    return "slowdown";
  });
  return seen;
}

let dir: string;
let store: S3Store;
let proxy: FaultProxy;

beforeAll(async () => {
  dir = tmp("retry");
  store = minioStore();
  proxy = await startFaultProxy(minio().endpoint);
});
afterAll(async () => {
  await proxy.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each<SourceKind>(["postgres", "mysql", "sqlite"])("%s source", (kind) => {
  it(`one 503 on every storage step of run (twice, incremental) and validate costs a retry, not the run`, async () => {
    const table = await createTable(kind, 3000);
    const prefix = uniquePrefix(`retry-${kind}`);
    const file = exportYaml(
      dir,
      table,
      "mode: incremental\ncursor_column: id\nformat: csv",
      prefix,
    );
    try {
      const env = exportEnv(proxy.endpoint, table.url);
      const before = proxy.injected.slowdown;
      const faulted = oncePerStep(proxy);
      const r1 = await runStowage(["run", "--config", file, "--json"], { env });
      expect(r1.code, r1.stderr + r1.stdout).toBe(0);
      for (const s of [
        "list-uploads",
        "list",
        "GET _SUCCESS",
        "PUT marker",
        "DELETE _SUCCESS",
        "PUT data",
        "PUT run-manifest",
        "PUT manifest.json",
        "PUT _SUCCESS",
        "PUT cursor",
        "DELETE marker",
      ])
        expect(faulted, s).toContain(s);
      expect(proxy.injected.slowdown - before).toBe(faulted.size);

      // A second run reads the cursor and the committed folder through the same faults.
      await table.insert(3001, 3100);
      const again = oncePerStep(proxy);
      const r2 = await runStowage(["run", "--config", file, "--json"], { env });
      expect(r2.code, r2.stderr + r2.stdout).toBe(0);
      expect(again).toContain("GET cursor");
      expect(again).toContain("GET manifest.json");
      const summary = JSON.parse(r2.stdout) as { exports: { rows: number }[] };
      expect(summary.exports[0]!.rows).toBe(100);

      // validate: no database variable at all (it reads only the bucket), one 503 per step.
      const checked = oncePerStep(proxy);
      const v = await runStowage(["validate", "--config", file, "--depth", "full"], {
        env: exportEnv(proxy.endpoint),
      });
      expect(v.code, v.stdout + v.stderr).toBe(0);
      expect(checked).toContain("GET _SUCCESS");
      expect(checked).toContain("GET manifest.json");
      expect(checked).toContain("GET data");
      const m = parseManifest(await readAll(store, `${prefix}/manifest.json`), "m");
      expect(m.totals.rows).toBe(3100);
      expect(await listAll(store, `${prefix}/_inprogress-`)).toEqual([]);
    } finally {
      proxy.setRule(undefined);
      await table.drop();
    }
  });
});

describe("a source that cannot be opened", () => {
  it("§7.2 while storage throttles: the run fails with the source's error and its early bucket reads stop with it (no retry wait outlives the run)", async () => {
    const prefix = uniquePrefix("early-reads");
    const cfg = minioExportConfig(
      { type: "postgres", url: "postgres://postgres@127.0.0.1:1/none" },
      { name: "orders", table: "orders" },
      prefix,
      { max_attempts: 8 },
      proxy.endpoint,
    );
    const exp = cfg.exports[0]!;
    const store = openExportStore(cfg, exp, minioEnv());
    proxy.setRule(() => "slowdown");
    const start = proxy.log.length;
    let atFailure = 0;
    try {
      const err = (await runExport(exp, {
        store,
        // The bucket's reads go out while the connection is tried: it is refused
        // (nothing listens on port 1) once the proxy has throttled one of them.
        openSource: async () => {
          for (let i = 0; proxy.log.length === start; i++) {
            if (i === 1000) throw new Error("no bucket read reached the proxy before the source");
            await new Promise((r) => setTimeout(r, 10));
          }
          return sourceOpener(cfg)();
        },
        sourceType: "postgres",
        tuning: cfg.tuning,
      }).then(
        () => undefined,
        (e: unknown) => e,
      )) as StowageError | undefined;
      atFailure = proxy.log.length;
      // The source's own refusal, not a storage error and not the guard above.
      expect(`${err?.message} ${err?.hint}`).toMatch(
        /nothing accepted the connection at 127\.0\.0\.1:1\b/,
      );
      // Their next attempts (due within 200 ms to 1.6 s) never come.
      await new Promise((r) => setTimeout(r, 2000));
      expect(proxy.log.length).toBe(atFailure);
    } finally {
      proxy.setRule(undefined);
      store.close();
    }
  });
});

describe("validate and cleanup", () => {
  it("run --cleanup retries its lists and deletes; validate's HEADs retry too", async () => {
    const table = await createTable("postgres", 50);
    const prefix = uniquePrefix("retry-cleanup");
    const file = exportYaml(dir, table, "format: ndjson", prefix);
    try {
      const env = exportEnv(proxy.endpoint, table.url);
      expect((await runStowage(["run", "--config", file], { env })).code).toBe(0);
      // A failed run's leftovers, as a crash leaves them: a marker listing a part.
      const orphan = `${prefix}/orders_20200101_000000_000.ndjson`;
      await store.put(orphan, "{}\n");
      await store.put(
        `${prefix}/_inprogress-orders-01HZZZZZZZZZZZZZZZZZZZZZZZ.json`,
        JSON.stringify({
          version: 1,
          export: "orders",
          run_id: "01HZZZZZZZZZZZZZZZZZZZZZZZ",
          mode: "full",
          prefix,
          started_at: "2020-01-01T00:00:00.000Z",
          keys: [orphan],
        }),
      );
      const faulted = oncePerStep(proxy);
      const c = await runStowage(["run", "--config", file, "--cleanup", "--json"], {
        env: exportEnv(proxy.endpoint), // --cleanup never connects to the database
      });
      expect(c.code, c.stderr + c.stdout).toBe(0);
      expect(faulted).toContain("list");
      expect(faulted).toContain("DELETE data");
      expect(faulted).toContain("DELETE marker");
      expect(JSON.parse(c.stdout)).toMatchObject({
        ok: true,
        exports: [{ export: "orders", runs: ["01HZZZZZZZZZZZZZZZZZZZZZZZ"], deletedObjects: 1 }],
      });
      expect(await listAll(store, `${prefix}/_inprogress-`)).toEqual([]);
      expect(await listAll(store, orphan)).toEqual([]);

      const heads = oncePerStep(proxy);
      const cfg = resolveExportConfig(
        {
          source: { type: "postgres", url_env: "NOT_SET" },
          exports: [
            {
              name: "orders",
              table: table.name,
              format: "ndjson",
              destination: {
                type: "s3",
                bucket: minio().bucket,
                prefix,
                endpoint: proxy.endpoint,
                region: "us-east-1",
                force_path_style: true,
                access_key_env: "AK",
                secret_key_env: "SK",
              },
            },
          ],
        },
        { env: exportEnv(proxy.endpoint), file: "t.yaml", needSource: false },
      );
      const { openExportStore } = await import("../src/export/session.js");
      const s = openExportStore(cfg, cfg.exports[0]!, exportEnv(proxy.endpoint));
      try {
        const r = await validateExport(cfg.exports[0]!, { store: s, maxAttempts: 3 });
        expect(r.status).toBe("ok");
        expect(heads).toContain("HEAD data");
      } finally {
        s.close();
      }
    } finally {
      proxy.setRule(undefined);
      await table.drop();
    }
  });
});
