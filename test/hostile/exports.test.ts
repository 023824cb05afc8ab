/**
 * Exports that were silently wrong or trusted what they should not (issue 31 §4, §5),
 * against real PostgreSQL, MariaDB and MinIO, with DuckDB reading the Parquet files.
 * (ClickHouse through chdb is not installed on this machine: only DuckDB reads here.)
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import type { ResolvedExportConfig } from "../../src/export/config.js";
import { encodeManifest, parseManifest, type Manifest } from "../../src/export/manifest.js";
import { cleanupConfiguredExport, runConfiguredExport } from "../../src/export/session.js";
import { validateExport } from "../../src/export/validate.js";
import { isStowageError } from "../../src/shared/errors.js";
import type { ObjectStore } from "../../src/store/object-store.js";
import { openStore } from "../../src/store/open-store.js";
import {
  createTable,
  minioEnv as env,
  minioExportConfig,
  listAll,
  readAll,
  tmp,
  type SourceKind,
  type TestTable,
} from "../support/export-project.js";
import { uniquePrefix } from "../support/minio.js";
import { MYSQL_URL, mysqlDrop, mysqlExec, mysqlTableName } from "../support/mysql.js";
import { PG_URL, pgDrop, pgExec, pgTableName } from "../support/pg.js";

const dir = tmp("hostile-exports");
const pgTables: string[] = [];
const myTables: string[] = [];
afterAll(async () => {
  await pgDrop(...pgTables);
  await mysqlDrop(...myTables);
});

/** Exports `table` to Parquet in MinIO and copies the one object to a local file for DuckDB. */
async function exportParquet(
  type: "postgres" | "mysql",
  url: string,
  table: string,
  tuning: Record<string, unknown> = {},
): Promise<string> {
  const cfg = minioExportConfig(
    { type, url },
    { name: "j", table, format: "parquet" },
    uniquePrefix(`hostile-json-${type}`),
    tuning,
  );
  const store = openStore(cfg.exports[0]!.destination, { env: env() }).store;
  try {
    const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env(), store });
    expect(r.parts).toHaveLength(1);
    const file = join(dir, `${table}.parquet`);
    writeFileSync(file, await readAll(store, r.parts[0]!.path));
    return file;
  } finally {
    store.close();
  }
}

async function duck<T extends unknown[]>(sql: string): Promise<T[]> {
  const db = await DuckDBInstance.create(":memory:");
  const c = await db.connect();
  try {
    return (await c.runAndReadAll(sql)).getRows() as T[];
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/** Column name → DuckDB type, from DESCRIBE. */
async function describeTypes(file: string): Promise<Record<string, string>> {
  const rows = await duck<[string, string]>(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  return Object.fromEntries(rows.map(([n, t]) => [n, t]));
}

// Text whose UTF-16 order and UTF-8 byte order disagree ("😀" is a surrogate pair, 0xD83D…,
// below U+FF01 in UTF-16 and above it in UTF-8): statistics must not let a reader skip it.
const TEXTS = ["plain", "é café", "😀 smile", "\uFF01 fullwidth", "中文", ""];

describe("issue 31 §5: Parquet JSON columns are JSON to DuckDB", () => {
  it("issue 31 §5: PostgreSQL json/jsonb → Parquet: DESCRIBE says JSON, ->> answers, text is VARCHAR", async () => {
    const t = pgTableName("hostile_json");
    pgTables.push(t);
    await pgExec(`CREATE TABLE "${t}" (id bigint PRIMARY KEY, meta json, metab jsonb, t text)`);
    for (let i = 1; i <= 12; i++) {
      await pgExec(`INSERT INTO "${t}" VALUES ($1, $2, $3, $4)`, [
        i,
        i === 12 ? null : JSON.stringify({ k: `v${i}`, n: i, nested: { x: [i] } }),
        JSON.stringify({ k: `b${i}`, é: "ü" }),
        TEXTS[i % TEXTS.length],
      ]);
    }
    // Small row groups, so per-group statistics decide what a filter reads.
    const file = await exportParquet("postgres", PG_URL, t, { row_group_size: 3 });
    const types = await describeTypes(file);
    expect(types).toMatchObject({ id: "BIGINT", meta: "JSON", metab: "JSON", t: "VARCHAR" });
    const rows = await duck<[bigint, string | null, string | null, string | null]>(
      `SELECT id, meta->>'k', metab->>'k', meta->'nested'->'x'->>0
       FROM read_parquet('${file}') ORDER BY id`,
    );
    expect(rows.map(([id, k, kb, x]) => [Number(id), k, kb, x])).toEqual(
      Array.from({ length: 12 }, (_, j) => {
        const i = j + 1;
        return [i, i === 12 ? null : `v${i}`, `b${i}`, i === 12 ? null : String(i)];
      }),
    );
    const accents = await duck<[string]>(
      `SELECT DISTINCT metab->>'é' FROM read_parquet('${file}')`,
    );
    expect(accents).toEqual([["ü"]]);
    for (const s of TEXTS) {
      const [row] = await duck<[bigint]>(
        `SELECT count(*) FROM read_parquet('${file}') WHERE t = '${s.replace(/'/g, "''")}'`,
      );
      expect(Number(row![0]), s).toBe(
        Array.from({ length: 12 }, (_, j) => j + 1).filter((i) => TEXTS[i % TEXTS.length] === s)
          .length,
      );
    }
  });

  it("issue 31 §5: MariaDB JSON → Parquet: DESCRIBE says JSON and ->> answers", async () => {
    const t = mysqlTableName("hostile_json");
    myTables.push(t);
    await mysqlExec(`CREATE TABLE \`${t}\` (id bigint PRIMARY KEY, meta JSON, t text)`);
    for (let i = 1; i <= 8; i++) {
      await mysqlExec(`INSERT INTO \`${t}\` VALUES (?, ?, ?)`, [
        i,
        i === 8 ? null : JSON.stringify({ k: `m${i}`, n: i }),
        TEXTS[i % TEXTS.length],
      ]);
    }
    const file = await exportParquet("mysql", MYSQL_URL, t, { row_group_size: 3 });
    expect(await describeTypes(file)).toMatchObject({ id: "BIGINT", meta: "JSON", t: "VARCHAR" });
    const rows = await duck<[bigint, string | null, bigint | null]>(
      `SELECT id, meta->>'k', CAST(meta->>'n' AS BIGINT) FROM read_parquet('${file}') ORDER BY id`,
    );
    expect(rows.map(([id, k, n]) => [Number(id), k, n === null ? null : Number(n)])).toEqual(
      Array.from({ length: 8 }, (_, j) => {
        const i = j + 1;
        return [i, i === 8 ? null : `m${i}`, i === 8 ? null : i];
      }),
    );
    const texts = await duck<[string]>(`SELECT t FROM read_parquet('${file}') ORDER BY id`);
    expect(texts.map(([s]) => s)).toEqual(
      Array.from({ length: 8 }, (_, j) => TEXTS[(j + 1) % TEXTS.length]),
    );
  });
});

// ---------------------------------------------------------------------------------------
// issue 31 §4: the keyset state file is bucket content; a resumed run must not trust it.

const ROWS = 6_000;
const PAGE = 500;

interface KeysetRig {
  table: TestTable;
  cfg: ResolvedExportConfig;
  store: ObjectStore;
  prefix: string;
  stateKey: string;
}

async function keysetRig(kind: SourceKind, format = "csv"): Promise<KeysetRig> {
  const table = await createTable(kind, ROWS);
  const prefix = uniquePrefix(`hostile-keyset-${kind}`);
  const cfg = minioExportConfig(
    { type: kind, url: table.url },
    {
      name: "orders",
      table: table.name,
      mode: "keyset",
      keyset_column: "id",
      page_size: PAGE,
      format,
    },
    prefix,
    { batch_size: 100 },
  );
  const store = openStore(cfg.exports[0]!.destination, { env: env() }).store;
  return { table, cfg, store, prefix, stateKey: `${prefix}/_keyset-orders.json` };
}

const run = (r: KeysetRig, signal?: AbortSignal, onRows?: (n: number) => void) =>
  runConfiguredExport(r.cfg, r.cfg.exports[0]!, {
    env: env(),
    store: r.store,
    ...(signal ? { signal } : {}),
    ...(onRows ? { onProgress: (p) => onRows(p.rows) } : {}),
  });

/** A keyset run stopped in its fourth page: three pages and the state are in the bucket. */
async function interrupted(r: KeysetRig): Promise<Record<string, unknown>> {
  const ac = new AbortController();
  await expect(
    run(r, ac.signal, (n) => {
      if (n >= 3 * PAGE + 100) ac.abort(new Error("stopped by the test"));
    }),
  ).rejects.toThrow();
  const state = JSON.parse((await readAll(r.store, r.stateKey)).toString()) as Record<
    string,
    unknown
  >;
  expect(state.pages).toBe(3);
  expect(state.last).toBe(String(3 * PAGE));
  return state;
}

async function putState(r: KeysetRig, state: unknown): Promise<void> {
  await r.store.put(r.stateKey, JSON.stringify(state), { contentType: "application/json" });
}

/** Every id in the committed CSV parts (header skipped). */
async function committedIds(r: KeysetRig): Promise<number[]> {
  const m = parseManifest(await readAll(r.store, `${r.prefix}/manifest.json`), "m");
  const ids: number[] = [];
  for (const p of m.parts) {
    const lines = (await readAll(r.store, p.path)).toString().trimEnd().split("\r\n").slice(1);
    ids.push(...lines.map((l) => Number(l.split(",")[0])));
  }
  return ids;
}

/** The run refuses with a clear error naming the state file, and commits nothing. */
async function expectRefused(r: KeysetRig, message: RegExp): Promise<void> {
  const err = await run(r).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "the run must refuse this state").toBeDefined();
  expect(isStowageError(err)).toBe(true);
  expect((err as Error).message).toContain("_keyset-orders.json");
  expect((err as Error).message).toMatch(message);
  expect((err as { hint?: string }).hint ?? "").toMatch(/delete/);
  expect(await listAll(r.store, `${r.prefix}/_SUCCESS`)).toEqual([]);
  expect(await listAll(r.store, `${r.prefix}/manifest.json`)).toEqual([]);
}

async function closeRig(r: KeysetRig): Promise<void> {
  r.store.close();
  await r.table.drop();
}

describe.each<SourceKind>(["postgres", "mysql"])("issue 31 §4: keyset state on %s", (kind) => {
  it(`issue 31 §4: "last: null" after pages is refused, never re-exported from the start (${kind})`, async () => {
    const r = await keysetRig(kind);
    try {
      const state = await interrupted(r);
      await putState(r, { ...state, last: null });
      await expectRefused(r, /last/);
      // The untouched state still resumes: every row exactly once, and validate agrees.
      await putState(r, state);
      const done = await run(r);
      expect(done.rows).toBe(ROWS);
      expect(await committedIds(r)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
      const v = await validateExport(r.cfg.exports[0]!, { store: r.store, depth: "full" });
      expect(v.problems).toEqual([]);
    } finally {
      await closeRig(r);
    }
  });
});

describe("issue 31 §4: keyset state that does not match the export is refused", () => {
  const cases: [string, (s: Record<string, unknown>) => Record<string, unknown>, RegExp][] = [
    ["a number where the key text was", (s) => ({ ...s, last: 1500 }), /last/],
    ['kind "__proto__"', (s) => ({ ...s, kind: "__proto__" }), /kind/],
    ["a kind other than the key column's", (s) => ({ ...s, kind: "string" }), /kind/],
    [
      "a kind other than the key column's, in a state without a schema (as before issue 31)",
      (s) => ({ ...s, kind: "string", schema: undefined }),
      /id as string, but the query gives int64/,
    ],
    ["another key column", (s) => ({ ...s, column: "v" }), /column/],
    ["another export's name", (s) => ({ ...s, export: "other" }), /export/],
    [
      "a folder outside the export's prefix",
      (s) => ({ ...s, prefix: "elsewhere" }),
      /prefix|folder/,
    ],
    ["pages that disagree with its parts", (s) => ({ ...s, pages: 2 }), /page/],
    [
      "a part listed twice",
      (s) => ({ ...s, parts: [...(s.parts as unknown[]), (s.parts as unknown[])[0]] }),
      /part/,
    ],
    [
      "a part of another run",
      (s) => ({
        ...s,
        parts: (s.parts as { path: string }[]).map((p, i) =>
          i === 0
            ? { ...p, path: p.path.replace(String(s.run_id), "01ARZ3NDEKTSV4RRFFQ69G5FAV") }
            : p,
        ),
      }),
      /part/,
    ],
    ["an unknown field", (s) => ({ ...s, extra: true }), /extra|unrecognized|unknown/i],
    [
      "a well-formed key behind the pages written (rows 1–1500 again)",
      (s) => ({ ...s, last: "0" }),
      /last|rows/,
    ],
  ];
  for (const [name, tamper, message] of cases) {
    it(`issue 31 §4: ${name}`, async () => {
      const r = await keysetRig("postgres");
      try {
        const state = await interrupted(r);
        await putState(r, tamper(state));
        await expectRefused(r, message);
      } finally {
        await closeRig(r);
      }
    });
  }

  it("issue 31 §4: a state file that is not JSON is refused by the run and does not break --cleanup", async () => {
    const r = await keysetRig("postgres");
    try {
      await interrupted(r);
      await r.store.put(r.stateKey, "{not json", { contentType: "application/json" });
      await expectRefused(r, /not a stowage keyset state/);
      // --cleanup reads the state to spare a resumable run: garbage there must not stop it.
      const c = await cleanupConfiguredExport(r.cfg, r.cfg.exports[0]!, {
        env: env(),
        store: r.store,
      });
      expect(c.runs).toHaveLength(1);
    } finally {
      await closeRig(r);
    }
  });
});

describe("issue 31 §4: a resumed run checks the state against the database", () => {
  it("issue 31 §4: columns changed while the run was paused are refused before a page is written", async () => {
    const r = await keysetRig("postgres");
    try {
      await interrupted(r);
      const before = await listAll(r.store, `${r.prefix}/`);
      await pgExec(`ALTER TABLE "${r.table.name}" ADD COLUMN extra int`);
      await expectRefused(
        r,
        /columns \(id int64, v string\), but the query gives \(id int64, v string, extra int32\)/,
      );
      expect(await listAll(r.store, `${r.prefix}/`)).toEqual(before);
    } finally {
      await closeRig(r);
    }
  });
});

describe("issue 31 §4: validate compares the manifest's rows with what the source returned", () => {
  it("issue 31 §4: the manifest records the rows the source returned, resumed pages included", async () => {
    const r = await keysetRig("postgres");
    try {
      const state = await interrupted(r);
      // As a state written before issue 31 (no schema): it still resumes, every row once.
      await putState(r, { ...state, schema: undefined });
      const done = await run(r);
      expect(await committedIds(r)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
      const m = parseManifest(await readAll(r.store, `${r.prefix}/manifest.json`), "m");
      expect(done.keyset?.resumed).toBe(true);
      expect(m.source).toEqual({ type: "postgres", rows: ROWS });
      expect(m.totals.rows).toBe(ROWS);
    } finally {
      await closeRig(r);
    }
  });

  it("issue 31 §4: a manifest listing more rows than the source returned fails validate --depth full", async () => {
    const r = await keysetRig("postgres");
    try {
      await run(r);
      // The shape of the bug: a page listed twice. Manifest, run copy and _SUCCESS stay consistent.
      const key = `${r.prefix}/manifest.json`;
      const m = parseManifest(await readAll(r.store, key), key) as Manifest;
      m.parts = [...m.parts, m.parts[0]!];
      m.totals = {
        rows: m.parts.reduce((a, p) => a + p.rows, 0),
        bytes: m.parts.reduce((a, p) => a + p.bytes, 0),
        parts: m.parts.length,
      };
      const { bytes, sha256 } = encodeManifest(m);
      await r.store.put(key, bytes, { contentType: "application/json" });
      await r.store.put(`${r.prefix}/manifest-${m.run_id}.json`, bytes, {
        contentType: "application/json",
      });
      await r.store.put(`${r.prefix}/_SUCCESS`, `${sha256}\n`, { contentType: "text/plain" });
      const v = await validateExport(r.cfg.exports[0]!, { store: r.store, depth: "full" });
      expect(v.ok).toBe(false);
      expect(v.problems.join("\n")).toMatch(/6500 rows/);
      expect(v.problems.join("\n")).toMatch(/6000 rows/);
      expect(v.problems.join("\n")).toMatch(/more than once/);
    } finally {
      await closeRig(r);
    }
  });
});
