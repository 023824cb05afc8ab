/**
 * The SQLite driver seam (the only module that loads one): `node:sqlite` where
 * the runtime has it, else better-sqlite3 12 (Node 20 has no `node:sqlite`).
 * Both are loaded lazily, so importing Stowage never loads a native module.
 */
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

/** True for SQLITE_BUSY / SQLITE_LOCKED: another connection holds the lock; try again later. */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
  );
}
