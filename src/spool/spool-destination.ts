/**
 * The destination a spool file is bound to (issue 30 row 1): a spool holds the records of ONE
 * destination, so they are only ever delivered there. The identity is stored in the `meta` row
 * `destination` by the first logger that opens the file (an older spool without one is bound
 * the same way); a logger configured for another destination is refused with a config error.
 * Status and retry tools never deliver and never check it.
 *
 * Identity = what the default spool path hashes (endpoint, bucket, prefix; see
 * config/logger-config.ts spoolTargetHash), plus the R2 account when there is one. The region
 * is not part of it: a bucket name is unique across the regions of its service, and a wrong
 * region is refused by the bucket, not a different destination. Never a credential.
 */
import type { ResolvedDestination } from "../config/destination.js";
import { StowageError } from "../shared/errors.js";
import type { SqlDatabase } from "./sqlite-driver.js";

/** The `meta` key holding the bound destination (canonical JSON from spoolDestinationId). */
export const DESTINATION_KEY = "destination";

type Identity =
  | { kind: "s3"; endpoint: string | null; bucket: string; prefix: string; account?: string }
  | { kind: "local"; path: string };

/** An endpoint as written in the identity and in messages: no userinfo, query or fragment. */
function cleanEndpoint(endpoint: string): string {
  try {
    const u = new URL(endpoint);
    const path = u.pathname === "/" ? "" : u.pathname.replace(/\/+$/, "");
    return `${u.protocol}//${u.host}${path}`;
  } catch {
    return endpoint.replace(/\/\/[^/@]*@/, "//");
  }
}

/**
 * The canonical identity of a destination, as stored in a spool.
 * @example spoolDestinationId({ type: "s3", bucket: "logs", prefix: "app", endpoint: "http://127.0.0.1:9000", ... })
 * // '{"kind":"s3","endpoint":"http://127.0.0.1:9000","bucket":"logs","prefix":"app"}'
 */
export function spoolDestinationId(dest: ResolvedDestination): string {
  const id: Identity =
    dest.type === "s3"
      ? {
          kind: "s3",
          endpoint: dest.endpoint ? cleanEndpoint(dest.endpoint) : null,
          bucket: dest.bucket,
          prefix: dest.prefix,
          ...(dest.accountId ? { account: dest.accountId } : {}),
        }
      : { kind: "local", path: dest.path };
  return JSON.stringify(id);
}

/**
 * A stored identity for people: `s3://bucket/prefix at http://host:port`.
 * @example describeSpoolDestination('{"kind":"local","path":"/srv/logs"}') // "the local store /srv/logs"
 */
export function describeSpoolDestination(stored: string): string {
  let id: Identity;
  try {
    id = JSON.parse(stored) as Identity;
  } catch {
    return stored.slice(0, 200);
  }
  if (id.kind === "local") return `the local store ${id.path}`;
  const where = id.endpoint ? `at ${id.endpoint}` : "on AWS S3";
  const account = id.account ? ` (account ${id.account})` : "";
  return `s3://${id.bucket}${id.prefix ? `/${id.prefix}` : ""} ${where}${account}`;
}

function boundTo(db: SqlDatabase): string | undefined {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(DESTINATION_KEY) as
    { value: string } | undefined;
  return row?.value;
}

function refusal(path: string, bound: string, mine: string): StowageError {
  const theirs = describeSpoolDestination(bound);
  return new StowageError(
    "config",
    `the spool ${path} is bound to ${theirs}; this logger writes to ${describeSpoolDestination(mine)}. A spool holds the records of one destination, so they are never delivered to another; this logger did not open it.`,
    {
      hint: `Give this logger its own spool: set s3.delivery.spoolPath (spool_path in YAML) to another file, or remove spoolPath to use the default path, which is one file per destination (~/.stowage/s3/<hash>.db). The records already in ${path} are delivered by a logger configured for ${theirs}.`,
    },
  );
}

/**
 * Throws StowageError("config") when the spool is bound to another destination than `mine`
 * (read only: an unbound spool passes and is bound by bindSpoolDestination).
 * @example checkSpoolDestination(db, "/var/spool/app.db", spoolDestinationId(resolved.destination));
 */
export function checkSpoolDestination(db: SqlDatabase, path: string, mine: string): void {
  const bound = boundTo(db);
  if (bound !== undefined && bound !== mine) throw refusal(path, bound, mine);
}

/**
 * Inside a write transaction: binds an unbound spool to `mine` (a spool written before
 * binding existed is bound by the first logger that opens it), or throws like
 * checkSpoolDestination when it is bound to another destination.
 */
export function bindSpoolDestination(db: SqlDatabase, path: string, mine: string): void {
  checkSpoolDestination(db, path, mine);
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)").run(DESTINATION_KEY, mine);
}
