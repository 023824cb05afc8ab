/**
 * SPEC §7.1 (sources), §7.2 (streaming in bounded memory): better-sqlite3 reads
 * synchronously, so the SQLite stream must give the event loop a turn between
 * batches; otherwise an export's uploads, timers and signals only move when its
 * upload queue is full, and finished parts pile up in memory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../spool/sqlite-driver.js";
import { openSqlite } from "./sqlite.js";

describe("SQLite source", () => {
  const dir = mkdtempSync(join(tmpdir(), "stowage-sqlite-source-"));
  const file = join(dir, "rows.sqlite");

  beforeAll(() => {
    const db = openDatabase(file, { busyTimeoutMs: 1000 });
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)");
    db.exec(`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 5000)
      INSERT INTO t SELECT n, 'row ' || n FROM g`);
    db.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("hands out every row in batches and lets the event loop turn between batches", async () => {
    const src = await openSqlite(`sqlite://${file}`);
    try {
      const stream = await src.query("SELECT id, name FROM t ORDER BY id", [], { batchSize: 100 });
      let turns = 0;
      let reading = true;
      const tick = () => {
        turns++;
        if (reading) setImmediate(tick);
      };
      setImmediate(tick);
      const turnsAtBatch: number[] = [];
      const ids: bigint[] = [];
      try {
        for await (const batch of stream) {
          turnsAtBatch.push(turns);
          for (const row of batch as unknown[][]) ids.push(row[0] as bigint);
        }
      } finally {
        reading = false; // the tick chain ends even when reading throws
      }
      expect(ids).toHaveLength(5000);
      expect(ids[0]).toBe(1n);
      expect(ids.at(-1)).toBe(5000n);
      expect(turnsAtBatch).toHaveLength(50);
      // Each batch after the first is read in a later turn of the event loop than the one before it.
      for (let i = 1; i < turnsAtBatch.length; i++)
        expect(turnsAtBatch[i]!).toBeGreaterThan(turnsAtBatch[i - 1]!);
    } finally {
      await src.close();
    }
  });
});
