/**
 * SPEC §5.5 scale-out recipe: the DuckDB queries of docs/scale-out.md, run with
 * @duckdb/node-api over a local-directory store written by the real logger.
 * (DuckDB's httpfs/aws extensions cannot be downloaded on this machine, so the
 * S3 form of the same glob is not run here; the glob and columns are the same.)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { expect, it } from "vitest";
import { createLogger } from "../src/index.js";

const COLUMNS = `columns = {
    timestamp: 'VARCHAR', level: 'VARCHAR', message: 'VARCHAR', service: 'VARCHAR',
    caller: 'VARCHAR', data: 'JSON', bindings: 'JSON', error: 'JSON',
    traceId: 'VARCHAR', spanId: 'VARCHAR'
  }`;

it("§5.5 DuckDB read_json over the hour glob of a local store answers the documented queries", async () => {
  const root = mkdtempSync(join(tmpdir(), "stowage-duckdb-"));
  const log = createLogger({
    console: false,
    service: "api",
    destination: "local",
    local: { path: root, delivery: { maxBatchRecords: 100 } },
  });
  const start = Date.UTC(2026, 10, 2, 22, 0, 0); // Nov 2 22:00 → Nov 3 02:00: two days, four hours
  const expected = new Map<string, number>();
  let inRange = 0;
  for (let i = 0; i < 2000; i++) {
    const ts = start + i * 7_200; // 4 hours
    const level = i % 50 === 0 ? "error" : i % 10 === 0 ? "warning" : "info";
    const iso = new Date(ts).toISOString();
    if (iso >= "2026-11-03T00:00:00.000Z") {
      inRange++;
      expected.set(level, (expected.get(level) ?? 0) + 1);
    }
    await log.write({
      timestamp: iso,
      level,
      message: level === "error" ? "payment failed\nsecond line" : "request completed",
      data: { route: i % 2 ? "/orders" : "/health", i },
      ...(level === "error"
        ? { error: { name: "PaymentDeclinedError", message: "card declined" } }
        : {}),
    });
  }
  expect((await log.close()).ok).toBe(true);

  const db = await DuckDBInstance.create(":memory:");
  const c = await db.connect();
  const glob = join(root, "v1/2026/11/*/*/*.ndjson.gz");
  const levels = await c.runAndReadAll(`
    SELECT level, count(*) AS n
    FROM read_json('${glob}', format = 'newline_delimited', compression = 'gzip', ${COLUMNS})
    WHERE timestamp >= '2026-11-03T00:00:00.000Z' AND timestamp < '2026-11-17T00:00:00.000Z'
    GROUP BY level ORDER BY n DESC`);
  const got = new Map(levels.getRows().map(([l, n]) => [String(l), Number(n)]));
  expect(got).toEqual(expected);
  expect([...got.values()].reduce((a, b) => a + b, 0)).toBe(inRange);

  const groups = await c.runAndReadAll(`
    SELECT error->>'name' AS error, split_part(message, chr(10), 1) AS first_line, count(*) AS n
    FROM read_json('${glob}', format = 'newline_delimited', compression = 'gzip',
                   columns = {timestamp: 'VARCHAR', level: 'VARCHAR', message: 'VARCHAR', error: 'JSON'})
    WHERE level IN ('error', 'critical') GROUP BY ALL ORDER BY n DESC LIMIT 20`);
  expect(groups.getRows()).toEqual([["PaymentDeclinedError", "payment failed", 40n]]);

  const all = await c.runAndReadAll(
    `SELECT count(*), count(DISTINCT data->>'i') FROM read_json('${glob}', format = 'newline_delimited', compression = 'gzip', ${COLUMNS})`,
  );
  expect(all.getRows()).toEqual([[2000n, 2000n]]); // sidecars are not matched by the glob; nothing twice
  c.closeSync();
});
