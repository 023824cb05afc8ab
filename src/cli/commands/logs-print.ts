/**
 * What `stowage logs` prints (SPEC §5.6), one-shot and `--follow` alike: records as pretty
 * lines (stored control characters escaped, never executed) or NDJSON, the skipped and
 * unverified objects and the stats line on stderr, every stored string escaped.
 */
import { escapeTerminal } from "../../record/terminal-safe.js";
import { formatBytes, formatCount } from "../../shared/bytes.js";
import type { LoadResult, LogRecordLike, ReadStats } from "../../reader/index.js";
import type { CliIo } from "../io.js";

/** What a grant or a poll found: its records, and the objects it skipped or could not vouch for. */
export type Found = Pick<LoadResult, "records" | "skipped" | "unverified">;

/**
 * Prints records (newest first within a grant, as objects of different writers overlap in
 * time; `as-given` keeps the order given: a follow's time order) and the reports.
 */
export function print(
  io: CliIo,
  result: Found,
  json: boolean,
  order: "newest-first" | "as-given" = "newest-first",
): void {
  const records =
    order === "as-given"
      ? result.records
      : [...result.records].sort((a, b) =>
          a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0,
        );
  let out = "";
  // Pretty lines go to a terminal: stored control sequences are shown, never executed.
  for (const r of records)
    out += json ? `${JSON.stringify(r)}\n` : `${escapeTerminal(pretty(r))}\n`;
  if (out) io.out(out);
  for (const s of result.skipped.slice(0, 5))
    io.err(escapeTerminal(`stowage logs: skipped ${s.key}: ${s.reason} (${s.detail})`) + "\n");
  if (result.skipped.length > 5)
    io.err(`stowage logs: … and ${result.skipped.length - 5} more skipped objects\n`);
  // Shown, but not proven intact: say which object they came from and why (docs/retention.md).
  for (const u of result.unverified.slice(0, 5))
    io.err(
      escapeTerminal(
        `stowage logs: unverified ${u.key}: ${u.problems.join("; ")} — its ${u.records} records shown are not proven intact (stowage verify)`,
      ) + "\n",
    );
  if (result.unverified.length > 5)
    io.err(`stowage logs: … and ${result.unverified.length - 5} more unverified objects\n`);
}

const SHOWN = ["service", "caller", "traceId"] as const;

function pretty(r: LogRecordLike): string {
  const parts = [
    String(r.timestamp),
    String(r.level ?? "")
      .toUpperCase()
      .padEnd(8),
    String(r.message ?? ""),
  ];
  for (const k of SHOWN) if (r[k] !== undefined) parts.push(`${k}=${short(r[k])}`);
  if (r.error) parts.push(`error=${short(`${r.error.name ?? "Error"}: ${r.error.message ?? ""}`)}`);
  if (r.data !== null && typeof r.data === "object" && !Array.isArray(r.data)) {
    for (const [k, v] of Object.entries(r.data as Record<string, unknown>).slice(0, 4))
      parts.push(`${k}=${short(v)}`);
  } else if (r.data !== undefined) parts.push(`data=${short(r.data)}`);
  return parts.join("  ");
}

function short(v: unknown): string {
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

export function statsLine(s: ReadStats, complete: boolean, more: number, stopped?: string): string {
  const shown = s.recordsReturned ?? s.records;
  const state = stopped
    ? stopped
    : complete
      ? "complete"
      : s.stoppedBy === "maxGrants" || s.grantsUsed >= s.maxGrants
        ? `partial: all ${s.maxGrants} grants used; narrow --from/--to or the filters`
        : `partial (stopped by ${s.stoppedBy ?? "a limit"}): run with --more ${more + 1} to read further`;
  return (
    `stowage logs: ${formatCount(shown)} records shown (${formatCount(s.records)} analysed) · LIST ${formatCount(s.listRequests)} · GET ${formatCount(s.getRequests)}` +
    `${s.retries ? ` (${formatCount(s.retries)} retries)` : ""} · ${formatBytes(s.downloadedBytes)} downloaded · ${formatBytes(s.decodedBytes)} decoded` +
    ` · objects ${formatCount(s.objectsRead)} read, ${formatCount(s.objectsSkipped)} skipped${s.objectsUnverified ? `, ${formatCount(s.objectsUnverified)} unverified` : ""}, ${formatCount(s.objectsCached)} cached · grants ${s.grantsUsed}/${s.maxGrants} · ${state}\n`
  );
}
