/**
 * SPEC §7.1: the one SQL builder writes integer bounds and cursors as literals (no
 * parameters left, so PostgreSQL can stream the statement through binary COPY) and
 * anything else — including text that is not purely an integer — as a parameter.
 */
import { describe, expect, it } from "vitest";
import { chunkSql, incrementalSql, keysetSql } from "./sql.js";
import type { SqlDialect } from "./sql.js";

const pg: SqlDialect = { quoteIdent: (n) => `"${n}"`, placeholder: (i) => `$${i}` };
const exp = { table: "orders" };

describe("SQL builder", () => {
  it("integer cursors, keys and chunk bounds are literals", () => {
    expect(incrementalSql(exp, pg, "id", { kind: "int64", value: "41" })).toEqual({
      sql: 'SELECT * FROM (SELECT * FROM "orders"\n) AS stowage_q WHERE "id" > 41',
      params: [],
    });
    expect(keysetSql(exp, pg, "id", 1000, { kind: "int32", value: -7 })).toEqual({
      sql: 'SELECT * FROM (SELECT * FROM "orders"\n) AS stowage_q WHERE "id" > -7 ORDER BY "id" LIMIT 1000',
      params: [],
    });
    expect(chunkSql(exp, pg, "id", { lo: -9007199254740993n, hi: 9007199254740993n }).sql).toBe(
      'SELECT * FROM (SELECT * FROM "orders"\n) AS stowage_q WHERE "id" >= -9007199254740993 AND "id" < 9007199254740993',
    );
  });

  it("a user query nests whatever its end: trailing semicolons dropped, a trailing -- comment closed", () => {
    const q = { query: "SELECT id FROM orders WHERE v <> ';' -- last line;\n ;; " };
    expect(incrementalSql(q, pg, "id", { kind: "int64", value: "1" }).sql).toBe(
      "SELECT * FROM (SELECT id FROM orders WHERE v <> ';' -- last line\n) AS stowage_q WHERE \"id\" > 1",
    );
  });

  it("anything else stays a parameter: text, timestamps, and integer kinds holding non-digits", () => {
    for (const [kind, value] of [
      ["int64", "1; DROP TABLE orders"],
      ["int64", "1e3"],
      ["int64", " 12"],
      ["int32", 1.5],
      ["string", "41"],
      ["timestamptz", "2024-01-01 00:00:00+00:00"],
    ] as const) {
      const st = incrementalSql(exp, pg, "k", { kind, value });
      expect(st.sql.endsWith('WHERE "k" > $1')).toBe(true);
      expect(st.params).toEqual([value]);
    }
  });
});
