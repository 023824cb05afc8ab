/**
 * On-disk format of the SQLite spool (SPEC §4), schema 1, and opening a file
 * safely: a file that is not ours is reported and never modified.
 *
 * Tables
 *   meta(key, value)      'magic' = 'stowage-spool', 'schema' = '1', 'created' = ISO time;
 *                         'destination' = the destination the file is bound to (canonical JSON,
 *                         spool-destination.ts; written by the first logger that opens it, also
 *                         for files written before binding existed);
 *                         'groups:<writer>' = '<seq>:<ms>', the highest record group of that
 *                         writer committed (exit-commit.ts), moved in the same transaction.
 *   usage(id = 1, bytes)  logical payload = Σ (UTF-8 line bytes + 1) over records
 *                         + Σ length(body) over batches; updated in every transaction that
 *                         changes either (SQLite and WAL overhead are not counted).
 *   owners(id, token, pid, host, heartbeat_ms, expires_ms)
 *                         writers; AUTOINCREMENT ids are never reused. An owner whose
 *                         expires_ms (its last heartbeat + its OWN lease) is past is dead;
 *                         expires_ms 0 = closed with records left behind (adopt at once).
 *   records(id, owner, ts_ms, line)
 *                         accepted, redacted, not yet sealed: one row per record.
 *   batches(id, key, state, lease_owner, lease_until_ms, records, decoded_bytes,
 *           min_ms, max_ms, body, created_ms, attempts, failure)
 *                         one row per sealed batch: gzip NDJSON body and its final v1 key.
 *
 * Batch states and transitions
 *   seal     records → batch 'leased' by the sealer (one transaction: delete records, insert batch)
 *   claim    'pending', or 'leased' with lease_until_ms < now → 'leased' by the claimer (one UPDATE)
 *   renew    leases held by a live owner are extended every lease/3
 *   deliver  row deleted (PUT 2xx, or 412 confirmed by HEAD: an earlier attempt landed)
 *   fail     'leased' by me → 'failed' (permanent error or exhausted attempts); stays on disk
 *   release  'leased' by me → 'pending' (clean close)
 *   retry    'failed' → 'pending' (retryS3Spool / `stowage spool retry`)
 *
 * Invariants
 *   - a record is in exactly one place: a `records` row, or one batch body. Sealing deletes
 *     only rows still owned by the sealer, in the same transaction that inserts the batch;
 *   - a batch's key and body never change: every attempt by any process sends the same bytes
 *     under the same key with If-None-Match: *, so a re-upload after a crash never duplicates;
 *   - usage.bytes equals the logical payload after every commit;
 *   - records of a dead or unregistered owner are adopted by exactly one live owner (one UPDATE).
 */
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { StowageError } from "../shared/errors.js";
import { openDatabase, type SqlDatabase } from "./sqlite-driver.js";
import { checkIntegrity, checkNotForeign, checkSpoolPath } from "./spool-file-check.js";

export const SPOOL_MAGIC = "stowage-spool";
export const SPOOL_SCHEMA = "1";
const SQLITE_HEADER = "SQLite format 3\0";
/** A writer waits this long for another process's write transaction before retrying later. */
export const BUSY_TIMEOUT_MS = 10_000;

const DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE usage (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL);
CREATE TABLE owners (id INTEGER PRIMARY KEY AUTOINCREMENT, token TEXT NOT NULL, pid INTEGER NOT NULL,
  host TEXT NOT NULL, heartbeat_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL);
CREATE TABLE records (id INTEGER PRIMARY KEY, owner INTEGER, ts_ms INTEGER NOT NULL, line TEXT NOT NULL);
CREATE TABLE batches (id TEXT PRIMARY KEY, key TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL CHECK (state IN ('pending', 'leased', 'failed')),
  lease_owner INTEGER, lease_until_ms INTEGER, records INTEGER NOT NULL, decoded_bytes INTEGER NOT NULL,
  min_ms INTEGER NOT NULL, max_ms INTEGER NOT NULL, body BLOB NOT NULL, created_ms INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0, failure TEXT);
CREATE INDEX batches_by_state ON batches (state, created_ms);
INSERT INTO usage (id, bytes) VALUES (1, 0);
`;

const hint = (path: string) =>
  `Set s3.delivery.spoolPath to another file, or move ${path} away if it is not needed. Stowage never overwrites it.`;

function foreign(path: string, what: string): StowageError {
  return new StowageError(
    "spool",
    `${path} is not a Stowage spool: ${what}. Stowage left it untouched.`,
    { hint: hint(path) },
  );
}

function checkHeader(path: string): void {
  if (statSync(path).size === 0) return; // an empty file is a new SQLite database
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    if (n < 16 || head.toString("latin1") !== SQLITE_HEADER)
      throw foreign(path, "it is not an SQLite database");
  } finally {
    closeSync(fd);
  }
}

/** "spool" when the file holds our schema, "empty" for a database without tables; throws for anything else. */
function inspect(db: SqlDatabase, path: string): "spool" | "empty" {
  const tables = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
  ).map((r) => r.name);
  if (tables.length === 0) return "empty";
  if (!tables.includes("meta"))
    throw foreign(
      path,
      `it is an SQLite database with other tables (${tables.slice(0, 5).join(", ")})`,
    );
  const rows = db.prepare("SELECT key, value FROM meta WHERE key IN ('magic', 'schema')").all() as {
    key: string;
    value: string;
  }[];
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  if (meta.get("magic") !== SPOOL_MAGIC)
    throw foreign(path, "it is an SQLite database without the stowage-spool magic row");
  if (meta.get("schema") !== SPOOL_SCHEMA) {
    throw new StowageError(
      "spool",
      `${path} is a Stowage spool of schema ${meta.get("schema") ?? "?"}; this version reads schema ${SPOOL_SCHEMA}. It was left untouched.`,
      {
        hint: `Deliver it with the Stowage version that wrote it, or set s3.delivery.spoolPath to a new file.`,
      },
    );
  }
  return "spool";
}

function sqliteFailure(path: string, err: unknown): StowageError {
  const code = String((err as { code?: unknown }).code ?? "");
  const message = err instanceof Error ? err.message : String(err);
  if (code.startsWith("SQLITE_NOTADB") || code.startsWith("SQLITE_CORRUPT")) {
    return new StowageError(
      "spool",
      `${path} is corrupt or not a Stowage spool (${message}). Stowage left it untouched.`,
      { cause: err, hint: hint(path) },
    );
  }
  return new StowageError("spool", `cannot open the spool ${path}: ${message}`, {
    cause: err,
    hint: "Check that the directory exists and is writable by this process, or set s3.delivery.spoolPath.",
  });
}

/**
 * Opens (and with `create`, creates) a spool file. Verifies the magic row and
 * schema BEFORE anything writes, so a foreign or corrupt file is never modified.
 * Writers get WAL with synchronous=NORMAL (see docs/spool.md for what survives what).
 * `integrity: false` skips `PRAGMA quick_check` (the process-end commit: the file was checked at open).
 * @example const db = openSpoolDatabase("/var/spool/app.db", { create: true });
 */
export function openSpoolDatabase(
  path: string,
  options: { create: boolean; readonly?: boolean; integrity?: boolean },
): { db: SqlDatabase; empty: boolean } {
  checkSpoolPath(path); // a directory is a config error, not a raw EISDIR
  const existed = existsSync(path) && statSync(path).size > 0;
  if (existsSync(path)) checkHeader(path);
  else if (!options.create) {
    throw new StowageError("not-found", `no spool at ${path}`, {
      hint: "Pass --path with the spool file (s3.delivery.spoolPath), or check the config's destination.",
    });
  } else {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (err) {
      throw sqliteFailure(path, err);
    }
  }
  let db: SqlDatabase;
  try {
    db = openDatabase(path, {
      readonly: options.readonly === true,
      busyTimeoutMs: BUSY_TIMEOUT_MS,
    });
  } catch (err) {
    throw sqliteFailure(path, err);
  }
  try {
    checkNotForeign(db, path); // user tables / user_version → refused, untouched
    let kind = inspect(db, path);
    if (existed && kind === "spool" && options.integrity !== false) checkIntegrity(db, path); // corrupt page
    if (kind === "empty" && options.create && !options.readonly) kind = initialise(db, path);
    if (kind === "spool" && !options.readonly) {
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
    }
    return { db, empty: kind === "empty" };
  } catch (err) {
    db.close();
    throw err instanceof StowageError ? err : sqliteFailure(path, err);
  }
}

function initialise(db: SqlDatabase, path: string): "spool" {
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("BEGIN IMMEDIATE");
  try {
    if (inspect(db, path) === "empty") {
      db.exec(DDL);
      const put = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
      put.run("magic", SPOOL_MAGIC);
      put.run("schema", SPOOL_SCHEMA);
      put.run("created", new Date().toISOString());
    }
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
  return "spool";
}
