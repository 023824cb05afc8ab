/**
 * Round trip of every source × format through a real MinIO (SPEC §7.1, §7.2):
 * rows written by PostgreSQL, MariaDB and SQLite come back from the bucket with
 * the same count, values and types — Parquet through an independent reader.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import Database from "better-sqlite3";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import type { ResolvedExportConfig } from "../src/export/config.js";
import { runConfiguredExport } from "../src/export/session.js";
import { openStore } from "../src/store/open-store.js";
import type { ObjectStore } from "../src/store/object-store.js";
import { minioEnv as env, minioExportConfig, readAll } from "./support/export-project.js";
import { uniquePrefix } from "./support/minio.js";
import { PG_URL, pgDrop, pgExec, pgTableName } from "./support/pg.js";
import { MYSQL_URL, mysqlDrop, mysqlExec, mysqlTableName } from "./support/mysql.js";

type Kind = "int" | "dec" | "float" | "bool" | "text" | "bytes" | "json" | "ts" | "date";
interface Case {
  columns: [string, Kind][];
  /** Canonical text per value (what CSV shows), null for NULL. */
  rows: (string | null)[][];
}

function config(
  sourceType: string,
  url: string,
  table: string,
  format: string,
  prefix: string,
  extra: Record<string, unknown> = {},
): ResolvedExportConfig {
  return minioExportConfig(
    { type: sourceType, url },
    { name: "rt", table, format, ...extra },
    prefix,
  );
}

/** RFC 4180 parser: quoted fields may hold `,` `"` CR LF; an unquoted empty field is NULL. */
function parseCsv(text: string): (string | null)[][] {
  const rows: (string | null)[][] = [];
  let row: (string | null)[] = [];
  let i = 0;
  while (i < text.length) {
    let field: string | null;
    if (text[i] === '"') {
      let s = "";
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        s += text.slice(i, q);
        i = q + 1;
        if (text[i] === '"') {
          s += '"';
          i++;
        } else break;
      }
      field = s;
    } else {
      const m = /[,\r]/.exec(text.slice(i));
      const end = m ? i + m.index : text.length;
      field = end === i ? null : text.slice(i, end);
      i = end;
    }
    row.push(field);
    if (text[i] === ",") i++;
    else if (text.startsWith("\r\n", i)) {
      rows.push(row);
      row = [];
      i += 2;
    }
  }
  return rows;
}

function micros(text: string): bigint {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z?$/.exec(text)!;
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return BigInt(ms) * 1000n + BigInt((m[7] ?? "").padEnd(6, "0"));
}

/** Compares one value read back against the canonical text. */
function check(kind: Kind, got: unknown, want: string | null, format: string, where: string): void {
  if (want === null) return void expect(got ?? null, where).toBeNull();
  if (format === "csv") return void expect(got, where).toBe(want);
  switch (kind) {
    case "int":
      return void expect(String(got), where).toBe(want);
    case "dec":
      if (typeof got === "number") return void expect(got, where).toBeCloseTo(Number(want), 2);
      return void expect(got, where).toBe(want);
    case "float":
      return void expect(got, where).toBe(Number(want));
    case "bool":
      return void expect(got, where).toBe(want === "true");
    case "text":
      return void expect(got, where).toBe(want);
    case "bytes":
      return void expect(
        typeof got === "string" ? got : Buffer.from(got as Uint8Array).toString("base64"),
        where,
      ).toBe(want);
    case "json":
      // Parquet: the JSON text as bytes; NDJSON: the value embedded as JSON.
      if (got instanceof Uint8Array)
        return void expect(JSON.parse(Buffer.from(got).toString()), where).toEqual(
          JSON.parse(want),
        );
      return void expect(got, where).toEqual(JSON.parse(want));
    case "ts":
      if (typeof got === "bigint") return void expect(got, where).toBe(micros(want));
      return void expect(got, where).toBe(want);
    case "date":
      if (typeof got === "number")
        return void expect(got, where).toBe(Math.round(Date.parse(want + "T00:00:00Z") / 86400000));
      return void expect(got, where).toBe(want);
  }
}

async function readBack(
  store: ObjectStore,
  key: string,
  format: string,
  compression: string,
): Promise<Record<string, unknown>[] | (string | null)[][]> {
  let bytes = await readAll(store, key);
  if (format === "parquet") {
    const file = bytes.buffer.slice(
      bytes.byteOffset,
      bytes.byteOffset + bytes.length,
    ) as ArrayBuffer;
    expect(parquetMetadata(file).row_groups[0]?.columns[0]?.meta_data?.codec).toBe(
      compression === "zstd" ? "ZSTD" : "SNAPPY",
    );
    const parsers = {
      timestampFromMicroseconds: (m: bigint) => m,
      dateFromDays: (d: number) => d,
    } as never;
    return parquetReadObjects({ file, compressors, utf8: false, parsers });
  }
  if (compression === "gzip") bytes = gunzipSync(bytes);
  const text = bytes.toString("utf8");
  if (format === "csv") return parseCsv(text);
  // Quote long integers before JSON.parse so 64-bit values keep every digit.
  return text
    .trimEnd()
    .split("\n")
    .map(
      (l) =>
        JSON.parse(l.replace(/(:|\[|,)(-?\d{16,})(?=[,}\]])/g, '$1"$2"')) as Record<
          string,
          unknown
        >,
    );
}

const FORMATS: [string, string][] = [
  ["parquet", "zstd"],
  ["parquet", "snappy"],
  ["csv", "none"],
  ["csv", "gzip"],
  ["ndjson", "none"],
  ["ndjson", "gzip"],
];

function roundTrip(
  name: string,
  sourceType: string,
  url: () => string,
  table: () => string,
  c: Case,
) {
  for (const [format, compression] of FORMATS) {
    it(`§7.2 ${name} → ${format} (${compression}) reads back with the source's count, values and types`, async () => {
      const prefix = uniquePrefix(`rt-${sourceType}-${format}`);
      const cfg = config(sourceType, url(), table(), format, prefix, { compression });
      const store = openStore(cfg.exports[0]!.destination, { env: env() }).store;
      try {
        const r = await runConfiguredExport(cfg, cfg.exports[0]!, { env: env(), store });
        expect(r.rows).toBe(c.rows.length);
        expect(r.parts.length).toBe(1);
        const ext =
          format === "parquet" ? "parquet" : `${format}${compression === "gzip" ? ".gz" : ""}`;
        expect(r.parts[0]!.path).toMatch(
          new RegExp(`^${prefix}/rt_\\d{8}_\\d{6}_\\d{3}\\.${ext.replace(".", "\\.")}$`),
        );
        const back = await readBack(store, r.parts[0]!.path, format, compression);
        const names = c.columns.map(([n]) => n);
        let records: unknown[][];
        if (format === "csv") {
          const rows = back as (string | null)[][];
          expect(rows[0]).toEqual(names);
          records = rows.slice(1);
        } else {
          records = (back as Record<string, unknown>[]).map((o) => {
            expect(Object.keys(o)).toEqual(names);
            return names.map((n) => o[n]);
          });
        }
        expect(records.length).toBe(c.rows.length);
        records.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
        const want = [...c.rows].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
        want.forEach((w, i) =>
          c.columns.forEach(([n, kind], j) =>
            check(kind, records[i]![j], w[j]!, format, `row ${i} ${n}`),
          ),
        );
      } finally {
        store.close();
      }
    });
  }
}

describe("PostgreSQL", () => {
  const table = pgTableName("rt_pg");
  beforeAll(async () => {
    await pgExec(`CREATE TABLE "${table}" (id bigint, i int, s smallint, n numeric(12,2), nb numeric(30,5), nu numeric, f float8, r real, b bool,
      t text, v varchar(20), by bytea, j json, jb jsonb, ts timestamp(6), tz timestamptz, d date, u uuid)`);
    await pgExec(`INSERT INTO "${table}" VALUES
      (9007199254740993, 2147483647, -32768, 1234567890.12, -1234567890123456789012345.12345, 3.14159265358979323846, 0.1, 1.5, true,
       E'a "quoted", text\\nwith newline ✓', 'hello', '\\x000102ff', '{"a": [1, 2, {"b": null}]}', '{"a": 1}', '2024-02-29 23:59:59.123456', '2024-02-29 23:59:59.123456+02', '1999-12-31', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
      (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (-9223372036854775808, 0, 0, -0.01, 0.00000, -0.00000000000000000001, -1.5e300, -2.25, false,
       '', ' spaced ', '\\x', '[]', '"str"', '1900-01-01 00:00:00', '1969-12-31 23:59:59.999999+00', '2000-02-29', '00000000-0000-0000-0000-000000000000')`);
  });
  afterAll(() => pgDrop(table));
  roundTrip(
    "PostgreSQL",
    "postgres",
    () => PG_URL,
    () => table,
    {
      columns: [
        ["id", "int"],
        ["i", "int"],
        ["s", "int"],
        ["n", "dec"],
        ["nb", "dec"],
        ["nu", "dec"],
        ["f", "float"],
        ["r", "float"],
        ["b", "bool"],
        ["t", "text"],
        ["v", "text"],
        ["by", "bytes"],
        ["j", "json"],
        ["jb", "json"],
        ["ts", "ts"],
        ["tz", "ts"],
        ["d", "date"],
        ["u", "text"],
      ],
      rows: [
        [
          "9007199254740993",
          "2147483647",
          "-32768",
          "1234567890.12",
          "-1234567890123456789012345.12345",
          "3.14159265358979323846",
          "0.1",
          "1.5",
          "true",
          'a "quoted", text\nwith newline ✓',
          "hello",
          "AAEC/w==",
          '{"a": [1, 2, {"b": null}]}',
          '{"a": 1}',
          "2024-02-29T23:59:59.123456",
          "2024-02-29T21:59:59.123456Z",
          "1999-12-31",
          "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        ],
        [
          "2",
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
        ],
        [
          "-9223372036854775808",
          "0",
          "0",
          "-0.01",
          "0.00000",
          "-0.00000000000000000001",
          "-1.5e+300",
          "-2.25",
          "false",
          "",
          " spaced ",
          "",
          "[]",
          '"str"',
          "1900-01-01T00:00:00",
          "1969-12-31T23:59:59.999999Z",
          "2000-02-29",
          "00000000-0000-0000-0000-000000000000",
        ],
      ],
    },
  );
});

describe("MariaDB", () => {
  const table = mysqlTableName("rt_my");
  beforeAll(async () => {
    await mysqlExec(`CREATE TABLE \`${table}\` (id BIGINT, i INT, ui INT UNSIGNED, ub BIGINT UNSIGNED, n DECIMAL(12,2), nb DECIMAL(30,5), f DOUBLE, fl FLOAT,
      b TINYINT(1), bt BIT(1), t TEXT, v VARCHAR(20), bl BLOB, j JSON, dt DATETIME(6), ts TIMESTAMP(6) NULL DEFAULT NULL, d DATE)`);
    await mysqlExec(`INSERT INTO \`${table}\` VALUES
      (9007199254740993, 2147483647, 4294967295, 18446744073709551615, 1234567890.12, -1234567890123456789012345.12345, 0.1, 1.5,
       1, b'1', 'a "quoted", text\\nwith newline ✓', 'hello', X'000102FF', '{"a": [1, 2, {"b": null}]}', '2024-02-29 23:59:59.123456', '2024-02-29 21:59:59.123456', '1999-12-31'),
      (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (-9223372036854775808, 0, 0, 0, -0.01, 0.00000, -1.5e300, -2.25, 0, b'0', '', ' spaced ', X'', '[]', '1900-01-01 00:00:00', '1970-01-01 00:00:01.000001', '2000-02-29')`);
  });
  afterAll(() => mysqlDrop(table));
  roundTrip(
    "MariaDB",
    "mysql",
    () => MYSQL_URL,
    () => table,
    {
      columns: [
        ["id", "int"],
        ["i", "int"],
        ["ui", "int"],
        ["ub", "dec"],
        ["n", "dec"],
        ["nb", "dec"],
        ["f", "float"],
        ["fl", "float"],
        ["b", "bool"],
        ["bt", "bool"],
        ["t", "text"],
        ["v", "text"],
        ["bl", "bytes"],
        ["j", "json"],
        ["dt", "ts"],
        ["ts", "ts"],
        ["d", "date"],
      ],
      rows: [
        [
          "9007199254740993",
          "2147483647",
          "4294967295",
          "18446744073709551615",
          "1234567890.12",
          "-1234567890123456789012345.12345",
          "0.1",
          "1.5",
          "true",
          "true",
          'a "quoted", text\nwith newline ✓',
          "hello",
          "AAEC/w==",
          '{"a": [1, 2, {"b": null}]}',
          "2024-02-29T23:59:59.123456",
          "2024-02-29T21:59:59.123456Z",
          "1999-12-31",
        ],
        [
          "2",
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
        ],
        [
          "-9223372036854775808",
          "0",
          "0",
          "0",
          "-0.01",
          "0.00000",
          "-1.5e+300",
          "-2.25",
          "false",
          "false",
          "",
          " spaced ",
          "",
          "[]",
          "1900-01-01T00:00:00",
          "1970-01-01T00:00:01.000001Z",
          "2000-02-29",
        ],
      ],
    },
  );
});

describe("SQLite", () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "stowage-rt-sqlite-"));
    file = join(dir, "db.sqlite");
    const db = new Database(file);
    db.exec(
      `CREATE TABLE items (id INTEGER, r REAL, t TEXT, b BLOB, n NUMERIC, j JSON, flag BOOLEAN)`,
    );
    const ins = db.prepare("INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?)").safeIntegers(true);
    ins.run(
      9007199254740993n,
      0.1,
      'a "quoted", text\nwith newline ✓',
      Buffer.from([0, 1, 2, 255]),
      "12.5",
      '{"a": [1, 2]}',
      1n,
    );
    ins.run(2n, null, null, null, null, null, null);
    ins.run(-9223372036854775808n, -1.5e300, "", Buffer.alloc(0), 7n, "[]", 0n);
    db.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  roundTrip(
    "SQLite",
    "sqlite",
    () => file,
    () => "items",
    {
      columns: [
        ["id", "int"],
        ["r", "float"],
        ["t", "text"],
        ["b", "bytes"],
        ["n", "dec"],
        ["j", "json"],
        ["flag", "bool"],
      ],
      rows: [
        [
          "9007199254740993",
          "0.1",
          'a "quoted", text\nwith newline ✓',
          "AAEC/w==",
          "12.5",
          '{"a": [1, 2]}',
          "true",
        ],
        ["2", null, null, null, null, null, null],
        ["-9223372036854775808", "-1.5e+300", "", "", "7", "[]", "false"],
      ],
    },
  );
});
