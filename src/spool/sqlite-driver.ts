/**
 * The SQLite driver seam (the only module that loads one): `node:sqlite` where
 * the runtime has it, else better-sqlite3 12 (Node 20 has no `node:sqlite`).
 * Both are loaded lazily, so importing Stowage never loads a native module.
 */
import { StowageError } from "../shared/errors.js";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

export interface SqlRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface SqlStatement {
  run(...params: unknown[]): SqlRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The subset of a synchronous SQLite connection the spool uses. */
export interface SqlDatabase {
  readonly driver: "node:sqlite" | "better-sqlite3";
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  close(): void;
}

export interface OpenDatabaseOptions {
  readonly?: boolean;
  /** Wait this long for another connection's write lock (PRAGMA busy_timeout). */
  busyTimeoutMs: number;
}

type BetterSqlite = new (
  path: string,
  options: { readonly?: boolean; fileMustExist?: boolean; timeout?: number },
) => {
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  close(): void;
};
type NodeSqlite = {
  DatabaseSync: new (path: string, options: Record<string, unknown>) => Omit<SqlDatabase, "driver">;
};

const require = createRequire(import.meta.url);
let loaded:
  { kind: "node:sqlite"; mod: NodeSqlite } | { kind: "better-sqlite3"; mod: BetterSqlite } | null =
  null;

function load(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  try {
    const mod = getBuiltin?.("node:sqlite") as NodeSqlite | undefined;
    if (mod?.DatabaseSync) return (loaded = { kind: "node:sqlite", mod });
  } catch {
    // node:sqlite absent or behind a flag: fall through to better-sqlite3.
  }
  return (loaded = { kind: "better-sqlite3", mod: require("better-sqlite3") as BetterSqlite });
}

/**
 * Opens `path` (which must exist when `readonly`). Sets the busy timeout only;
 * the caller decides journal mode after checking the file is a spool, because
 * `PRAGMA journal_mode=WAL` writes to the file header.
 * @example const db = openDatabase("/tmp/s.db", { busyTimeoutMs: 10_000 });
 */
export function openDatabase(path: string, options: OpenDatabaseOptions): SqlDatabase {
  const drv = load();
  if (drv.kind === "node:sqlite") {
    if (options.readonly && !existsSync(path))
      throw Object.assign(new Error(`unable to open database file ${path}`), {
        code: "SQLITE_CANTOPEN",
      });
    const db = new drv.mod.DatabaseSync(path, { readOnly: options.readonly === true });
    db.exec(`PRAGMA busy_timeout = ${Math.floor(options.busyTimeoutMs)}`);
    return wrap("node:sqlite", db);
  }
  const db = new drv.mod(path, {
    readonly: options.readonly === true,
    fileMustExist: options.readonly === true,
    timeout: options.busyTimeoutMs,
  });
  return wrap("better-sqlite3", db);
}

function wrap(driver: SqlDatabase["driver"], db: Omit<SqlDatabase, "driver">): SqlDatabase {
  return {
    driver,
    exec: (sql) => db.exec(sql),
    prepare: (sql) => db.prepare(sql),
    close: () => db.close(),
  };
}

/** What a failing SQLite call means for a spool, by the driver's error code family. */
const SQLITE_MEANINGS: [prefix: string, meaning: (path: string) => string, hint: string][] = [
  [
    "SQLITE_FULL",
    (p) => `the disk holding the spool ${p} is full`,
    "Free space on that disk (or move the spool with s3.delivery.spoolPath), then run the command again; nothing was changed.",
  ],
  [
    "SQLITE_READONLY",
    (p) => `the spool ${p} is read-only here`,
    "Run as the user that owns the spool file, or make it and its folder writable.",
  ],
  [
    "SQLITE_PERM",
    (p) => `no permission to write the spool ${p}`,
    "Run as the user that owns the spool file, or make it and its folder writable.",
  ],
  [
    "SQLITE_IOERR",
    (p) => `the disk failed while reading or writing the spool ${p}`,
    "Check the disk (dmesg, df), then run the command again.",
  ],
  [
    "SQLITE_CORRUPT",
    (p) => `the spool ${p} is damaged`,
    "Keep a copy of the file for inspection; `sqlite3 <file> .recover` can save what is readable.",
  ],
];

/**
 * A SQLite failure on a spool as a StowageError("spool") that says what happened and what to
 * do, instead of the driver's stack; other errors pass through unchanged.
 * @example catch (err) { throw spoolFailure(err, path); }
 */
export function spoolFailure(err: unknown, path: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return err;
  const known = SQLITE_MEANINGS.find(([prefix]) => code.startsWith(prefix));
  if (!known) return err;
  return new StowageError("spool", `${known[1](path)} (${code})`, { hint: known[2], cause: err });
}

/** True for SQLITE_BUSY / SQLITE_LOCKED: another connection holds the lock; try again later. */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
  );
}
