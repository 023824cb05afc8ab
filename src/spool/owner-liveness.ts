/**
 * Whether a spool owner is provably dead: an owner on this host
 * whose pid is not running — or is running but started at another time (the pid
 * was reused) — is dead now, without waiting for its lease. Owners on other
 * hosts, and owners whose liveness cannot be checked, are judged by their lease.
 *
 * Process identity = `<boot id>:<start time in clock ticks>` from /proc (Linux);
 * elsewhere it is empty and a running pid counts as live (the lease decides).
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { pidRunning } from "../shared/pid.js";

export type OwnerState = "live" | "dead-pid" | "lease-expired" | "closed";

function readProc(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** Start time (clock ticks since boot) of `pid`, from /proc/<pid>/stat; null when unknown. */
function startTicks(pid: number): string | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === null) return null;
  // Field 2 (comm) may hold spaces and parentheses: count fields after the last ")".
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return rest[19] ?? null; // field 22 overall
}

let bootId: string | null | undefined;
function currentBootId(): string | null {
  if (bootId === undefined) bootId = readProc("/proc/sys/kernel/random/boot_id")?.trim() ?? null;
  return bootId;
}

/**
 * This process's identity, stored with its owner rows ("" when /proc is unavailable).
 * @example processIdentity() // "3f1c…-…:123456"
 */
export function processIdentity(pid: number = process.pid): string {
  const boot = currentBootId();
  const start = startTicks(pid);
  return boot !== null && start !== null ? `${boot}:${start}` : "";
}

export interface OwnerRow {
  pid: number;
  host: string;
  /** `<random>~<identity>` (identity may be empty); older rows hold the random part only. */
  token: string;
  expires_ms: number;
}

/**
 * How an owner stands: `closed` (closed with records left behind), `lease-expired`,
 * `dead-pid` (same host, its process is gone or the pid was reused), or `live`.
 * @example ownerState(row, Date.now()) === "dead-pid" // adopt at once
 */
export function ownerState(row: OwnerRow, now: number): OwnerState {
  if (row.expires_ms === 0) return "closed";
  if (row.expires_ms < now) return "lease-expired";
  if (row.host !== hostname()) return "live";
  if (!pidRunning(row.pid)) return "dead-pid";
  const recorded = row.token.split("~")[1] ?? "";
  if (recorded === "") return "live"; // nothing to compare: the lease decides
  const now_ = processIdentity(row.pid);
  return now_ !== "" && now_ !== recorded ? "dead-pid" : "live";
}
