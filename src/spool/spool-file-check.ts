/**
 * Checks on a spool path before and right after it is opened: a
 * directory, a SQLite database that belongs to something else (user tables or
 * a user_version), and a corrupt page (`PRAGMA quick_check`). Each refusal
 * leaves the file untouched and says what to do.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { StowageError } from "../shared/errors.js";
import type { SqlDatabase } from "./sqlite-driver.js";

/** The spool's own tables (sqlite_sequence comes with AUTOINCREMENT). */
const SPOOL_TABLES = new Set(["meta", "usage", "owners", "records", "batches", "sqlite_sequence"]);

const moveHint = (path: string) =>
  `Set s3.delivery.spool_path (spoolPath in TypeScript) to another file, or move ${path} away if it is not needed. Stowage never overwrites it.`;

/**
 * Throws StowageError("config") when `path` exists and is a directory: the
 * spool path names a file inside a directory, not the directory.
 * @example checkSpoolPath("/var/spool") // throws: "... is a directory ..."
 */
export function checkSpoolPath(path: string): void {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    return; // missing: it will be created; other errors surface when it is opened
  }
  if (isDir) {
    throw new StowageError(
      "config",
      `the spool path ${path} is a directory; the spool is one SQLite file: name a file in it, e.g. ${join(path, "stowage-spool.db")}`,
      { hint: "set s3.delivery.spool_path (spoolPath in TypeScript) to a file path" },
    );
  }
}

/**
 * Refuses an opened SQLite database that is not (only) a Stowage spool: any
 * table outside the spool's schema, or a user_version other than 0 (Stowage
 * never sets one, other applications do). Called before anything writes.
 */
export function checkNotForeign(db: SqlDatabase, path: string): void {
  const version = (db.prepare("PRAGMA user_version").get() as { user_version?: number })
    .user_version;
  const others = (
    db.prepare("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").all() as {
      type: string;
      name: string;
    }[]
  ).filter((r) => !(r.type === "table" && SPOOL_TABLES.has(r.name)) && r.type !== "index");
  const what =
    version !== undefined && version !== 0
      ? `it is an SQLite database with user_version ${version}`
      : others.length
        ? `it is an SQLite database with ${describeObjects(others)}`
        : undefined;
  if (what) {
    throw new StowageError(
      "spool",
      `${path} is not a Stowage spool: ${what}. Stowage left it untouched.`,
      { hint: moveHint(path) },
    );
  }
}

/** "other tables (a, b)" or "other objects (view v, table t)", at most five named. */
function describeObjects(others: readonly { type: string; name: string }[]): string {
  const shown = others.slice(0, 5);
  return shown.every((r) => r.type === "table")
    ? `other tables (${shown.map((r) => r.name).join(", ")})`
    : `other objects (${shown.map((r) => `${r.type} ${r.name}`).join(", ")})`;
}

/**
 * `PRAGMA quick_check` on an existing spool: a corrupt page is refused at open,
 * with the file untouched, instead of failing every later write.
 */
export function checkIntegrity(db: SqlDatabase, path: string): void {
  let result: string;
  try {
    const rows = db.prepare("PRAGMA quick_check(5)").all() as { quick_check?: string }[];
    result = rows.map((r) => r.quick_check ?? "").join("; ");
  } catch (err) {
    result = err instanceof Error ? err.message : String(err);
  }
  if (result === "ok") return;
  throw new StowageError(
    "spool",
    `${path} is a corrupt spool (quick_check: ${result.slice(0, 300)}). Stowage left it untouched.`,
    {
      hint: `Keep a copy for recovery (sqlite3 ${path} .recover), then ${moveHint(path).charAt(0).toLowerCase()}${moveHint(path).slice(1)}`,
    },
  );
}

/**
 * A failed spool write as the error to report: a full disk (SQLITE_FULL, ENOSPC,
 * or the page limit) says so and what to do; anything else is returned as is.
 * Records committed earlier are unaffected: the failed transaction rolled back.
 */
export function spoolWriteError(err: unknown, path: string): unknown {
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  const message = err instanceof Error ? err.message : String(err);
  if (
    !code.startsWith("SQLITE_FULL") &&
    code !== "ENOSPC" &&
    !/database or disk is full/i.test(message)
  )
    return err;
  return new StowageError(
    "spool",
    `the spool's disk is full (${path}): records not yet acknowledged could not be committed; those already acknowledged are kept. Free space on that disk or lower maxSpoolBytes.`,
    { cause: err, hint: "see docs/spool.md (maxSpoolBytes, spoolPath)" },
  );
}
