// Files and folders that are not what they seem (SPEC §4): a spool path that is a
// directory, SQLite databases of other applications, a corrupt spool, a real store under
// `stowage demo --dir`, and doctor in an empty folder. Every refused file is left byte-identical.
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { openSync, closeSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StowageError } from "../../src/shared/errors.js";
import { openDatabase, type SqlDatabase } from "../../src/spool/sqlite-driver.js";
import { openSpoolDatabase } from "../../src/spool/sqlite-schema.js";
import { SqliteSpool } from "../../src/spool/sqlite-spool.js";
import { runStowage } from "../support/cli.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "stowage-hostile-files-"));
  dirs.push(d);
  return d;
};
const digest = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

function refusal(path: string): StowageError {
  try {
    openSpoolDatabase(path, { create: true }).db.close();
  } catch (err) {
    expect(err).toBeInstanceOf(StowageError);
    return err as StowageError;
  }
  throw new Error(`${path} was opened as a spool`);
}

describe("§3 spool path is a directory", () => {
  it("is a config error naming a file to use instead; `spool status` says so without a stack", async () => {
    const dir = tempDir();
    const err = refusal(dir);
    expect(err.code).toBe("config");
    expect(err.message).toContain(`the spool path ${dir} is a directory`);
    const run = await runStowage(["spool", "status", "--path", dir], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is a directory");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("§3 a SQLite database that is not a Stowage spool is refused and untouched", () => {
  const foreign: [string, string][] = [
    ["user_version set, no tables", "PRAGMA user_version = 7"],
    ["a view only", "CREATE VIEW v AS SELECT 1 AS one"],
    ["an application table", "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)"],
    [
      "the spool's table names plus an application table",
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); CREATE TABLE accounts (id INTEGER)",
    ],
  ];
  it.each(foreign)("%s", (_name, sql) => {
    const path = join(tempDir(), "app.db");
    const db = openDatabase(path, { busyTimeoutMs: 1000 });
    db.exec(sql);
    db.close();
    const before = digest(path);
    const err = refusal(path);
    expect(err.message).toContain("is not a Stowage spool");
    expect(err.message).toContain("left it untouched");
    expect(digest(path)).toBe(before);
  });
});

describe("§3 a spool with a corrupt page", () => {
  it("is refused on open by quick_check, with the file untouched", () => {
    const path = join(tempDir(), "spool.db");
    const spool = SqliteSpool.open(path, { leaseMs: 1000 });
    for (let i = 0; i < 20; i++)
      spool.append(
        Array.from({ length: 50 }, (_, j) => ({
          line: `{"message":"record ${i}-${j} ${"x".repeat(200)}"}`,
          timestampMs: Date.UTC(2026, 0, 1) + j,
        })),
      );
    spool.close();
    const pageSize = 4096;
    expect(statSync(path).size).toBeGreaterThan(pageSize * 8);
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, pageSize * 5); // garble page 6
    closeSync(fd);
    const before = digest(path);
    const err = refusal(path);
    expect(err.message).toMatch(/corrupt/);
    expect(err.message).toContain("left it untouched");
    expect(digest(path)).toBe(before);
  });
});

describe("§3 disk full while spooling", () => {
  it("says the spool's disk is full and keeps the records already acknowledged", () => {
    const path = join(tempDir(), "spool.db");
    const spool = SqliteSpool.open(path, { leaseMs: 1000 });
    const rec = (i: number) => ({ line: `{"i":${i},"pad":"${"y".repeat(2000)}"}`, timestampMs: i });
    spool.append([rec(0), rec(1)]);
    const acknowledged = spool.status().records;
    expect(acknowledged).toBe(2);
    // SQLite's page limit answers SQLITE_FULL exactly as a full disk does.
    const db = (spool as unknown as { db: SqlDatabase }).db;
    const pages = (db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
    db.exec(`PRAGMA max_page_count = ${pages + 1}`);
    let err: unknown;
    try {
      for (let i = 2; i < 200; i++) spool.append([rec(i)]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StowageError);
    expect((err as Error).message).toContain("the spool's disk is full");
    expect((err as Error).message).toContain("lower maxSpoolBytes");
    expect((err as Error).message).not.toContain("no transaction is active");
    expect(spool.status().records).toBeGreaterThanOrEqual(acknowledged);
    spool.close();
    const reopened = SqliteSpool.open(path, { leaseMs: 1000 });
    expect(reopened.status().records).toBeGreaterThanOrEqual(acknowledged);
    reopened.close();
  });
});

describe("§3 stowage demo --dir", () => {
  it("refuses to replace a store an application wrote, and says why", async () => {
    const dir = tempDir();
    const store = join(dir, ".stowage", "store");
    mkdirSync(join(store, "v1"), { recursive: true });
    writeFileSync(join(store, "v1", "app.ndjson.gz"), "application data");
    const run = await runStowage(
      ["demo", "--no-studio", "--dir", ".stowage", "--hours", "1", "--per-hour", "5"],
      {
        cwd: dir,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("stowage demo did not create");
    expect(readFileSync(join(store, "v1", "app.ndjson.gz"), "utf8")).toBe("application data");
  });

  it("replaces its own store on a re-run", async () => {
    const dir = tempDir();
    for (let i = 0; i < 2; i++) {
      const run = await runStowage(
        ["demo", "--no-studio", "--dir", "d", "--hours", "1", "--per-hour", "5"],
        {
          cwd: dir,
        },
      );
      expect(run.code, run.stderr).toBe(0);
    }
    expect(existsSync(join(dir, "d", ".stowage-demo"))).toBe(true);
  });
});

describe("§3 stowage doctor in an empty folder", () => {
  it("leaves nothing behind", async () => {
    const dir = tempDir();
    const run = await runStowage(["doctor"], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });
});
