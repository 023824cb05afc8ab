/**
 * SPEC §7.1–7.2: PostgreSQL rows read through binary COPY are the same values the
 * cursor path gives for every decoded type (typed for Parquet, text for CSV/NDJSON),
 * edge values included; a column without a binary decoder, or a query with
 * parameters, reads through the cursor; a consumer that stops early, a statement
 * that fails mid-stream and an abort leave the connection usable. Real PostgreSQL.
 */
import { createServer, connect, type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cursorParam } from "../src/export/modes/cursor.js";
import { openPostgres } from "../src/export/sources/postgres.js";
import { chunkSql, keysetSql } from "../src/export/sql.js";
import { csvRenderer } from "../src/encoders/csv.js";
import {
  batchColumn,
  batchRows,
  CsvLines,
  type QueryOptions,
  type Row,
  type Source,
} from "../src/export/sources/source.js";
import { isStowageError } from "../src/shared/errors.js";
import { PG_URL, pgDrop, pgExec, pgTableName } from "./support/pg.js";

const table = pgTableName("pgcopy_types");

/** Every type the COPY path decodes, with the values most likely to differ between paths. */
const COLUMNS = `
  b boolean, by bytea, i8 bigint, i2 smallint, i4 integer, o oid, f8 double precision,
  n numeric, n12 numeric(12,2), n38 numeric(38,10), t text, vc varchar(20), bc char(5),
  nm name, j json, jb jsonb, u uuid, d date, ts timestamp, tstz timestamptz`;

const NAMES = "b, by, i8, i2, i4, o, f8, n, n12, n38, t, vc, bc, nm, j, jb, u, d, ts, tstz";

const ROWS = [
  `(true, '\\x00ff10', 9007199254740993, -32768, -2147483648, 4294967295, 0.1,
    123456789012345678901234567890.123456789, 1234567890.12, -0.0000000001, 'héllo ✓ 😀', 'v', 'ab',
    'pg_name', '{"a": [1, 2.50, "x"]}', '{"z": 1, "a": {"b": null}}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    '2024-02-29', '1969-12-31 23:59:59.999999', '2024-01-02 03:04:05.5+01')`,
  `(false, '', -9007199254740993, 32767, 2147483647, 0, -1.5e-300,
    'NaN', 0, 0, '', '', '', '', 'null', '[]', '00000000-0000-0000-0000-000000000000',
    '0044-03-15 BC', '0001-01-01 00:00:00', '1900-06-30 12:00:00+00')`,
  `(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
    null, null, null)`,
  `(true, '\\x', 0, 0, 0, 1, 'Infinity', 'Infinity', -99.99, 1e-10, 'line1
line2, "quoted"', 'x', 'abcde', 'n', '1', '"s"', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '9999-12-31', '2262-04-11 23:47:16.854775', '3000-01-01 00:00:00.000001+00')`,
  `(false, '\\x01', 1, 1, 1, 2, '-Infinity', '-Infinity', 0.01, 12345678901234567890.1234567891, 'z', 'z', 'z',
    'z', '{}', '{}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1970-01-01', '294276-12-31 23:59:59.999999',
    '4713-01-01 00:00:00+00 BC')`,
  `(false, null, 42, 1, 1, 2, 'NaN', -0.5, 10, 100, 'z', 'z', 'z', 'z', '{}', '{}', null,
    '2000-01-01', '2000-01-01 00:00:00', '2000-01-01 00:00:00+00')`,
];

let copy: Source;
let cursor: Source;
/** COPY rows through the driver's CopyData events instead of the socket tap. */
let events: Source;

beforeAll(async () => {
  await pgExec(`CREATE TABLE ${table} (k serial, ${COLUMNS})`);
  await pgExec(`INSERT INTO ${table} (${NAMES}) VALUES ${ROWS.join(",")}`);
  copy = await openPostgres(PG_URL);
  cursor = await openPostgres(PG_URL, 10_000, { copy: false });
  events = await openPostgres(PG_URL, 10_000, { tapSocket: false });
});

afterAll(async () => {
  await copy?.close();
  await cursor?.close();
  await events?.close();
  await pgDrop(table);
});

async function readAll(src: Source, sql: string, options: Partial<QueryOptions> = {}) {
  const stream = await src.query(sql, [], { batchSize: 2, ...options });
  const rows: Row[] = [];
  for await (const b of stream) rows.push(...batchRows(b));
  return { columns: stream.columns, rows };
}

/**
 * The CSV body of a query: through COPY as `CsvLines` (every batch must be one), or
 * through the cursor's text values rendered by the CSV format's row renderer.
 */
async function csvBody(src: Source, sql: string, lines: boolean, batchSize = 2) {
  const stream = await src.query(sql, [], { batchSize, textValues: true, csvLines: lines });
  const render = csvRenderer(stream.columns);
  const parts: Buffer[] = [];
  let rows = 0;
  for await (const b of stream) {
    rows += b.length;
    if (lines) {
      expect(b).toBeInstanceOf(CsvLines);
      expect(b.length).toBeLessThanOrEqual(batchSize);
      parts.push(Buffer.from((b as CsvLines).bytes));
    } else parts.push(Buffer.from(batchRows(b).map(render).join(""), "utf8"));
  }
  return { rows, text: Buffer.concat(parts).toString("utf8") };
}

/**
 * A real TCP proxy in front of PostgreSQL that counts the COPY statements it forwards and,
 * with `refuse`, spoils them (`COPX (`) so that the server itself refuses them.
 */
async function pgProxy(refuse: boolean) {
  const target = new URL(PG_URL);
  const sockets = new Set<Socket>();
  const state = { copies: 0 };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => sockets.delete(s));
    }
    client.on("data", (d: Buffer) => {
      const at = d.indexOf("COPY (");
      if (at >= 0) {
        state.copies++;
        if (refuse) d.write("COPX (", at, "latin1");
      }
      upstream.write(d);
    });
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = new URL(PG_URL);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: url.toString(),
    get copies() {
      return state.copies;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe("binary COPY reads the same values as the cursor (SPEC §7.2)", () => {
  it.each([
    ["typed values (Parquet)", {}],
    ["text values (CSV/NDJSON)", { textValues: true }],
    ["text values with a typed cursor column", { textValues: true, typedColumns: ["tstz", "i8"] }],
  ])("%s: every type, edge values, NULLs", async (_name, opts) => {
    const sql = `SELECT * FROM ${table} ORDER BY k`;
    const a = await readAll(copy, sql, opts);
    const b = await readAll(cursor, sql, opts);
    expect(a.columns).toEqual(b.columns);
    expect(a.rows.length).toBe(ROWS.length);
    expect(a.rows).toEqual(b.rows);
    expect(await readAll(events, sql, opts)).toEqual(a);
  });

  it("CSV lines written from the COPY bytes are the CSV the cursor's values render, byte for byte", async () => {
    const sql = `SELECT * FROM ${table} ORDER BY k`;
    for (const size of [1, 2, 1000]) {
      const a = await csvBody(copy, sql, true, size);
      expect(a).toEqual(await csvBody(cursor, sql, false));
      expect(a.rows).toBe(ROWS.length);
    }
    expect((await csvBody(copy, sql, true)).text).toContain('"line1\nline2, ""quoted"""');
    // Typed columns (an incremental cursor, a keyset key) travel as values beside the lines.
    const typedColumns = ["k", "tstz", "i8", "n38"];
    const opts = { textValues: true, typedColumns } as const;
    const stream = await copy.query(sql, [], { batchSize: 4, csvLines: true, ...opts });
    const idx = typedColumns.map((c) => stream.columns.findIndex((x) => x.name === c));
    const seen: unknown[][] = [];
    let text = "";
    for await (const b of stream) {
      expect(b).toBeInstanceOf(CsvLines);
      text += (b as CsvLines).bytes.toString("utf8");
      const cols = idx.map((i) => batchColumn(b, i));
      for (let r = 0; r < b.length; r++) seen.push(cols.map((c) => c[r]));
      // A slice keeps its own rows' values.
      for (const [k, i] of idx.entries())
        expect(batchColumn(b.slice(1), i)).toEqual(cols[k]!.slice(1));
    }
    const values = await readAll(cursor, sql, opts);
    expect(text).toBe((await csvBody(cursor, sql, false)).text);
    expect(seen).toEqual(values.rows.map((r) => idx.map((i) => r[i])));
  });

  it("CSV lines: random numerics, a row larger than a batch buffer, and many rows", async () => {
    const sql = `SELECT g, (random() * 10 ^ (g % 40 - 20))::numeric(60, 25) AS a,
        round(((random() - 0.5) * 10 ^ (g % 30))::numeric, g % 12) AS b, (g - 500)::numeric / 7 AS c,
        CASE WHEN g = 7 THEN repeat('x",', 200000) ELSE 'r' || g END AS t, repeat('y✓', g % 60) AS u
      FROM generate_series(1, 3000) g`;
    const view = pgTableName("pgcopy_csvnum");
    await pgExec(`CREATE TABLE ${view} AS ${sql}`);
    try {
      const q = `SELECT * FROM ${view} ORDER BY g`;
      const a = await csvBody(copy, q, true, 500);
      expect(a).toEqual(await csvBody(cursor, q, false));
      expect(await csvBody(events, q, true, 500)).toEqual(a);
      expect(a.rows).toBe(3000);
      expect(a.text.length).toBeGreaterThan(800_000);
    } finally {
      await pgDrop(view);
    }
  });

  it("typed int64 and timestamps are numbers when safe integers, bigints beyond, on both paths", async () => {
    const sql = `SELECT i8, ts FROM ${table} ORDER BY k`;
    for (const src of [copy, cursor]) {
      const { rows } = await readAll(src, sql);
      expect(rows.map((r) => r[0])).toEqual([
        9007199254740993n,
        -9007199254740993n,
        null,
        0,
        1,
        42,
      ]);
      expect(rows[0]![1]).toBe(-1); // 1969-12-31 23:59:59.999999
      expect(typeof rows[4]![1]).toBe("bigint"); // year 294276: beyond 2^53 µs
    }
  });

  it("numeric text is exact for random values at many scales", async () => {
    const sql = `SELECT (random() * 10 ^ (g % 40 - 20))::numeric(60, 25) AS a,
        round(((random() - 0.5) * 10 ^ (g % 30))::numeric, g % 12) AS b, (g - 500)::numeric / 7 AS c
      FROM generate_series(1, 3000) g`;
    // Each row carries PostgreSQL's own text of its values beside them: decoded binary vs numeric_out.
    const rows = (
      await readAll(
        copy,
        `SELECT a, b, c, a::text AS at, b::text AS bt, c::text AS ct FROM (${sql}) q`,
      )
    ).rows;
    expect(rows.length).toBe(3000);
    for (const r of rows) expect([r[0], r[1], r[2]]).toEqual([r[3], r[4], r[5]]);
  });

  it.each([
    ["timestamptz, typed", `SELECT 'infinity'::timestamptz AS t`, {}],
    ["timestamp, text", `SELECT '-infinity'::timestamp AS t`, { textValues: true }],
    ["date, typed", `SELECT 'infinity'::date AS d`, {}],
  ])(
    "an infinite %s fails as it does through the cursor, with nothing thrown past the stream",
    async (_n, sql, opts) => {
      const errOf = (src: Source) =>
        readAll(src, sql, opts).then(
          () => undefined,
          (e: unknown) => e as Error,
        );
      const [a, b] = await Promise.all([errOf(copy), errOf(cursor)]);
      expect(isStowageError(a, "source")).toBe(true);
      expect(a?.message).toMatch(/infinity" cannot be represented/);
      expect(a?.message).toBe(b?.message);
      expect((await readAll(cursor, `SELECT 4 AS four`)).rows).toEqual([[4]]);
    },
  );
});

describe("what binary COPY leaves to the cursor, and its stream's life", () => {
  it("a column without a binary decoder (inet, interval, arrays) reads through the cursor", async () => {
    const sql = `SELECT '10.0.0.1'::inet AS ip, interval '1 day 2 hours' AS iv, ARRAY[1,2] AS arr, 7::bigint AS n`;
    const a = await readAll(copy, sql);
    expect(a.rows).toEqual([["10.0.0.1", "1 day 02:00:00", "{1,2}", 7]]);
  });

  it("a parameterised query reads through the cursor", async () => {
    const stream = await copy.query(`SELECT $1::bigint + 1 AS n`, ["41"], { batchSize: 10 });
    const rows: Row[] = [];
    for await (const b of stream) rows.push(...batchRows(b));
    expect(rows).toEqual([[42]]); // int64: a number when safe, as through COPY
  });

  it("many batches arrive in order, and a trailing semicolon is accepted", async () => {
    const { rows } = await readAll(
      copy,
      `SELECT g AS n FROM generate_series(1, 25000) g ORDER BY g;`,
      {
        batchSize: 1000,
      },
    );
    expect(rows.length).toBe(25000);
    expect(rows.every((r, i) => r[0] === i + 1)).toBe(true);
  });

  it("a query ending in a line comment and semicolons reads through COPY", async () => {
    const app = `stowage_copycomment_${Math.random().toString(16).slice(2, 10)}`;
    const src = await openPostgres(`${PG_URL}?application_name=${app}`);
    try {
      const stream = await src.query(
        `SELECT g AS n, pg_sleep(0)::text AS s FROM generate_series(1, 3) g -- the last line;\n ;; `,
        [],
        { batchSize: 10 },
      );
      const rows: Row[] = [];
      for await (const b of stream) rows.push(...batchRows(b));
      expect(rows).toEqual([
        [1, ""],
        [2, ""],
        [3, ""],
      ]);
    } finally {
      await src.close();
    }
  });

  it("a server that refuses binary COPY is read through the cursor, from then on", async () => {
    // The proxy turns `COPY (` into `COPX (`: the server answers with its own syntax
    // error, as a PostgreSQL-compatible server without COPY would.
    const proxy = await pgProxy(true);
    const src = await openPostgres(proxy.url);
    try {
      for (const n of [3, 4]) {
        const { rows } = await readAll(src, `SELECT g AS n FROM generate_series(1, ${n}) g`);
        expect(rows).toEqual(Array.from({ length: n }, (_, i) => [i + 1]));
      }
      expect(proxy.copies).toBe(1); // tried once; the second query went straight to the cursor
    } finally {
      await src.close();
      await proxy.close();
    }
  });

  it("keyset pages and chunk ranges on an integer key carry no parameters and stream through COPY", async () => {
    const proxy = await pgProxy(false);
    const src = await openPostgres(proxy.url);
    try {
      const exp = { table };
      const page = keysetSql(exp, src, "k", 2, {
        kind: "int32",
        value: cursorParam("int32", "2", "postgres"),
      });
      const chunk = chunkSql(exp, src, "k", { lo: 1n, hi: 4n });
      const a = await readAll(src, page.sql);
      const b = await readAll(src, chunk.sql);
      expect([page.params, chunk.params]).toEqual([[], []]);
      expect(proxy.copies).toBe(2);
      expect(a.rows.map((r) => r[0])).toEqual([3, 4]);
      expect(b.rows.map((r) => r[0]).sort()).toEqual([1, 2, 3]);
    } finally {
      await src.close();
      await proxy.close();
    }
  });

  it("enum columns read through COPY (their label is their binary form), as through the cursor", async () => {
    const type = pgTableName("pgcopy_mood");
    const t = pgTableName("pgcopy_enum");
    await pgExec(`CREATE TYPE ${type} AS ENUM ('sad', 'ok', 'happy ✓')`);
    await pgExec(`CREATE TABLE ${t} (id int, mood ${type}, moods ${type}[])`);
    await pgExec(`INSERT INTO ${t} VALUES (1, 'sad', NULL), (2, NULL, NULL), (3, 'happy ✓', NULL)`);
    const proxy = await pgProxy(false);
    const src = await openPostgres(proxy.url);
    try {
      const sql = `SELECT id, mood FROM ${t} ORDER BY id`;
      const a = await readAll(src, sql);
      expect(proxy.copies).toBe(1);
      const b = await readAll(cursor, sql);
      expect(a).toEqual(b);
      expect(a.rows).toEqual([
        [1, "sad"],
        [2, null],
        [3, "happy ✓"],
      ]);
      // An array of enums has no decoder: the cursor reads that query.
      await readAll(src, `SELECT id, moods FROM ${t}`);
      expect(proxy.copies).toBe(1);
    } finally {
      await src.close();
      await proxy.close();
      await pgExec(`DROP TABLE ${t}; DROP TYPE ${type}`);
    }
  });

  it("over TLS the socket tap reads the same values and CSV bytes as the cursor", async () => {
    const url = new URL(PG_URL);
    url.searchParams.set("sslmode", "no-verify"); // the local server's certificate is self-signed
    const tls = await openPostgres(url.toString());
    try {
      const ssl = await readAll(tls, `SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`);
      expect(ssl.rows).toEqual([[true]]);
      const sql = `SELECT * FROM ${table} ORDER BY k`;
      expect(await readAll(tls, sql)).toEqual(await readAll(cursor, sql));
      expect(await csvBody(tls, sql, true)).toEqual(await csvBody(cursor, sql, false));
      const many = `SELECT g, repeat('x', g % 300) AS t FROM generate_series(1, 20000) g`;
      expect(await readAll(tls, many)).toEqual(await readAll(cursor, many));
    } finally {
      await tls.close();
    }
  });

  it("a consumer that stops early cancels the COPY; the connection answers the next query", async () => {
    const stream = await copy.query(
      `SELECT g AS n, repeat('x', 200) AS pad FROM generate_series(1, 2000000) g`,
      [],
      {
        batchSize: 500,
      },
    );
    let seen = 0;
    for await (const b of stream) {
      seen += b.length;
      if (seen >= 2000) break;
    }
    expect(seen).toBe(2000);
    const next = await readAll(copy, `SELECT 5 AS five`);
    expect(next.rows).toEqual([[5]]);
  });

  it("a statement that fails mid-stream is a source error; the connection answers the next query", async () => {
    const stream = await copy.query(
      `SELECT 1 / (g - 3000) AS x FROM generate_series(1, 5000) g`,
      [],
      {
        batchSize: 100,
      },
    );
    let seen = 0;
    const err = await (async () => {
      for await (const b of stream) seen += b.length;
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isStowageError(err, "source")).toBe(true);
    expect((err as Error).message).toMatch(
      /PostgreSQL failed while reading rows: division by zero/,
    );
    expect(seen).toBeLessThan(3000);
    expect((await readAll(copy, `SELECT 6 AS six`)).rows).toEqual([[6]]);
  });

  it("a backend terminated mid-COPY is a lost connection with the re-run hint, thrown from the stream", async () => {
    const app = `stowage_copykill_${Math.random().toString(16).slice(2, 10)}`;
    const src = await openPostgres(`${PG_URL}?application_name=${app}`);
    try {
      const stream = await src.query(
        `SELECT g AS id, repeat(md5(g::text), 3) AS payload,
           CASE WHEN g % 50000 = 0 THEN length(pg_sleep(0.2)::text) ELSE 0 END AS pause
         FROM generate_series(1, 2000000) g`,
        [],
        { batchSize: 1000 },
      );
      let seen = 0;
      const err = await (async () => {
        for await (const b of stream) {
          if (seen === 0) {
            const killed = await pgExec<{ ok: boolean }>(
              // Only a backend running the COPY matches: this test is about that path.
              "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'COPY (%'",
              [app],
            );
            expect(killed).toEqual([{ ok: true }]);
          }
          seen += b.length;
        }
      })().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(isStowageError(err, "source")).toBe(true);
      expect(err?.message).toMatch(
        /the PostgreSQL connection was lost while reading rows: (terminating connection due to administrator command|write EPIPE|read ECONNRESET|Connection terminated)/,
      );
      expect((err as { hint?: string }).hint).toContain("re-run the export");
      expect(seen).toBeLessThan(2_000_000);
    } finally {
      await src.close();
    }
  });

  it("a missing table fails at the query, as through the cursor", async () => {
    const err = await copy.query(`SELECT * FROM no_such_table_pgcopy`, [], { batchSize: 10 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(isStowageError(err, "source")).toBe(true);
    expect(err?.message).toMatch(/no_such_table_pgcopy/);
    expect((await readAll(copy, `SELECT 7 AS seven`)).rows).toEqual([[7]]);
  });

  it("an abort between batches stops the stream and leaves the connection usable", async () => {
    const ac = new AbortController();
    const stream = await copy.query(`SELECT g AS n FROM generate_series(1, 1000000) g`, [], {
      batchSize: 1000,
      signal: ac.signal,
    });
    let seen = 0;
    const err = await (async () => {
      for await (const b of stream) {
        seen += b.length;
        if (seen === 3000) ac.abort();
      }
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeDefined();
    expect(seen).toBe(3000);
    expect((await readAll(copy, `SELECT 8 AS eight`)).rows).toEqual([[8]]);
  });
});
