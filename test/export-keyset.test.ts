/**
 * §4, keyset mode: pages of `WHERE key > last ORDER BY key LIMIT n`
 * named `{export}_{run_id}_{page}`; a run killed with SIGKILL mid-way resumes
 * from its last completed page on the next start (state in the bucket beside the
 * cursor) and the committed set holds every row exactly once. Real child
 * processes against real PostgreSQL and MariaDB and MinIO.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { parseManifest } from "../src/export/manifest.js";
import { isStowageError } from "../src/shared/errors.js";
import type { S3Store } from "../src/store/s3-store.js";
import { BIN, runStowage } from "./support/cli.js";
import {
  createTable,
  exportEnv,
  exportYaml,
  listAll,
  readAll,
  tmp,
  type SourceKind,
} from "./support/export-project.js";
import { minio, minioStore, uniquePrefix } from "./support/minio.js";

let dir: string;
let store: S3Store;
beforeAll(() => {
  dir = tmp("keyset");
  store = minioStore();
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ROWS = 60_000;
const PAGE = 5_000;
/**
 * Pauses so a run lasts a few seconds and can be killed between pages. PostgreSQL
 * evaluates the pause only for a page's rows (one per page); MariaDB materialises the
 * derived table, evaluating all twelve per page, so its pause is shorter.
 */
const pause = (kind: SourceKind) =>
  kind === "postgres"
    ? `CASE WHEN id % ${PAGE} = 0 THEN pg_sleep(0.25) END`
    : `CASE WHEN id % ${PAGE} = 0 THEN SLEEP(0.04) END`;

async function pagesDone(key: string): Promise<number> {
  try {
    return (JSON.parse((await readAll(store, key)).toString()) as { pages: number }).pages;
  } catch (err) {
    if (isStowageError(err, "not-found")) return 0;
    throw err;
  }
}

describe.each<SourceKind>(["postgres", "mysql"])("keyset on %s", (kind) => {
  it("kill -9 mid-run, then the next start resumes from the last page: every row exactly once", async () => {
    const table = await createTable(kind, ROWS);
    const prefix = uniquePrefix(`keyset-${kind}`);
    const q = kind === "postgres" ? `"${table.name}"` : `\`${table.name}\``;
    const file = exportYaml(
      dir,
      table,
      `query: SELECT id, v, ${pause(kind)} AS pause FROM ${q}\nmode: keyset\nkeyset_column: id\npage_size: ${PAGE}\nformat: csv`,
      prefix,
      "batch_size: 1000",
    );
    const env = exportEnv(minio().endpoint, table.url);
    const stateKey = `${prefix}/_keyset-orders.json`;
    try {
      const child = spawn(process.execPath, [BIN, "run", "--config", file], {
        env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
        stdio: "ignore",
      });
      const exited = new Promise((r) => child.on("close", r));
      const deadline = Date.now() + 60_000;
      while ((await pagesDone(stateKey)) < 3) {
        if (Date.now() > deadline) throw new Error("the keyset run never completed 3 pages");
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill("SIGKILL");
      await exited;
      const state = JSON.parse((await readAll(store, stateKey)).toString()) as {
        run_id: string;
        pages: number;
      };
      expect(state.pages).toBeGreaterThanOrEqual(3);
      expect(state.pages).toBeLessThan(ROWS / PAGE);
      expect(await listAll(store, `${prefix}/_SUCCESS`)).toEqual([]);

      const again = await runStowage(["run", "--config", file, "--json"], { env });
      expect(again.code, again.stderr).toBe(0);
      const summary = JSON.parse(again.stdout) as {
        exports: { run_id: string; rows: number; keyset: { resumed: boolean; pages: number } }[];
      };
      expect(summary.exports[0]).toMatchObject({
        run_id: state.run_id, // the same run, continued
        rows: ROWS,
        keyset: { resumed: true, pages: ROWS / PAGE },
      });
      const m = parseManifest(await readAll(store, `${prefix}/manifest.json`), "m");
      const ids: number[] = [];
      for (const p of m.parts) {
        expect(p.path).toMatch(new RegExp(`/orders_${state.run_id}_\\d{6}\\.csv$`));
        const lines = (await readAll(store, p.path)).toString().trimEnd().split("\r\n").slice(1);
        expect(lines).toHaveLength(p.rows);
        ids.push(...lines.map((l) => Number(l.split(",")[0])));
      }
      expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1)); // exactly once, in key order
      const data = (await listAll(store, `${prefix}/`)).filter((k) => /\/orders_/.test(k));
      expect(data).toEqual(m.parts.map((p) => p.path).sort()); // nothing else left behind
      expect(await listAll(store, stateKey)).toEqual([]);
      expect(await listAll(store, `${prefix}/_inprogress-`)).toEqual([]);
      const v = await runStowage(["validate", "--config", file, "--depth", "full"], {
        env: exportEnv(minio().endpoint),
      });
      expect(v.code, v.stdout).toBe(0);
    } finally {
      await table.drop();
    }
  }, 180_000);
});

describe("keyset on SQLite", () => {
  it("pages in key order; a NULL key is refused with a clear error", async () => {
    const table = await createTable("sqlite", 2_500);
    const prefix = uniquePrefix("keyset-sqlite");
    const file = exportYaml(
      dir,
      table,
      "mode: keyset\nkeyset_column: id\npage_size: 1000\nformat: ndjson",
      prefix,
    );
    const r = await runStowage(["run", "--config", file, "--json"], {
      env: exportEnv(minio().endpoint, table.url),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      exports: [{ rows: 2500, parts: 3, keyset: { pages: 3, resumed: false } }],
    });
    const nullable = exportYaml(
      dir,
      table,
      `query: SELECT CASE WHEN id = 7 THEN NULL ELSE id END AS k, v FROM "${table.name}"\nmode: keyset\nkeyset_column: k\nformat: csv`,
      uniquePrefix("keyset-null"),
    );
    const bad = await runStowage(["run", "--config", nullable], {
      env: exportEnv(minio().endpoint, table.url),
    });
    expect(bad.code).toBe(2); // a column unfit for keyset is a config error
    expect(bad.stderr).toContain('keyset_column "k" has NULL values');
  });
});
