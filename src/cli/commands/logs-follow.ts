/**
 * `stowage logs --follow` (SPEC §5.6): one `source.follow()` call, its events printed —
 * new records in time order on stdout; on stderr the first read's stats line, one line
 * when storage starts failing and one when it answers again, each poll's spend with
 * `--stats`, and the spend when the follow ends (Ctrl-C: exit 130).
 */
import { escapeTerminal } from "../../record/terminal-safe.js";
import { formatBytes, formatCount, parseBytes } from "../../shared/bytes.js";
import { StowageError } from "../../shared/errors.js";
import type {
  Follow,
  FollowOptions,
  FollowStats,
  PollLimits,
  PollOutcome,
  Source,
} from "../../reader/index.js";
import type { CliIo, SetExitCode } from "../io.js";
import { print, statsLine } from "./logs-print.js";

export interface FollowPrintOptions {
  json: boolean;
  /** Print the budget per poll and each poll's spend. */
  stats: boolean;
  /** The first read's `--more` (for its stats line). */
  more: number;
}

/**
 * Follows `source` until `options.signal` aborts (exit 130) or storage refuses (thrown).
 * @example await followLogs(io, setExit, source, { from, signal, intervalMs: 2000 }, { json: false, stats: true, more: 0 });
 */
export async function followLogs(
  io: CliIo,
  setExit: SetExitCode,
  source: Source,
  options: FollowOptions,
  p: FollowPrintOptions,
): Promise<void> {
  const follow = source.follow(options);
  let behindSaid = false;
  let ended = "stopped";
  try {
    for await (const ev of follow) {
      if (ev.type === "first") {
        print(io, ev.result, p.json, "as-given");
        io.err(statsLine(ev.result.stats, ev.result.complete, p.more));
        if (ev.result.lastError && ev.result.stats.stoppedBy?.endsWith("Attempts"))
          io.err(
            escapeTerminal(
              `stowage logs: storage kept failing in the first read (${ev.result.lastError}); older records may be missing above; following`,
            ) + "\n",
          );
        if (p.stats) io.err(budgetLine(follow));
      } else if (ev.type === "poll") {
        print(io, ev, p.json, "as-given");
        if (p.stats) io.err(pollLine(ev));
        else if (!behindSaid && isBehind(ev)) {
          behindSaid = true;
          io.err(
            `stowage logs: a poll's budget did not cover everything new (stopped by ${ev.stoppedBy}); the rest follows in the next polls (raise it with --poll-limit; --stats shows each poll)\n`,
          );
        }
      } else if (ev.type === "outage") {
        io.err(
          escapeTerminal(
            `stowage logs: storage is failing (${ev.error}); backing off (next poll in ${seconds(ev.retryInMs)}, then longer); records written meanwhile follow when it answers`,
          ) + "\n",
        );
      } else {
        io.err(
          `stowage logs: storage answers again after ${formatCount(ev.failedPolls)} failed polls; following\n`,
        );
      }
    }
    if (options.signal?.aborted) {
      ended = "interrupted";
      setExit(130);
    }
  } catch (err) {
    ended = "failed";
    throw err;
  } finally {
    io.err(spendLine(follow.stats, ended));
  }
}

/** Poll interval: `2s`, `500ms`, `1m`; a bare number is seconds. At least 100 ms. */
export function parseInterval(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/i.exec(text.trim());
  const ms = m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[(m[2] ?? "s").toLowerCase()]! : NaN;
  if (!Number.isFinite(ms) || ms < 100)
    throw new StowageError(
      "usage",
      `--interval must be a duration of at least 100 ms, like 2s, 500ms or 1m; got "${text}"`,
    );
  return Math.round(ms);
}

const POLL_LIMITS = ["downloadBytes", "listAttempts", "getAttempts", "records", "decodedBytes"];

/** `--poll-limit getAttempts=8` → `{ getAttempts: 8 }`; byte allowances take sizes like 4MiB. */
export function parsePollLimits(given: string[]): Partial<PollLimits> {
  const out: Record<string, number> = {};
  for (const item of given) {
    const m = /^([A-Za-z]+)=(.+)$/.exec(item.trim());
    if (!m || !POLL_LIMITS.includes(m[1]!))
      throw new StowageError(
        "usage",
        `--poll-limit "${item}" must look like name=value with name one of ${POLL_LIMITS.join(", ")}`,
      );
    const [, name, value] = m as unknown as [string, string, string];
    try {
      out[name] = name.endsWith("Bytes")
        ? parseBytes(value, `--poll-limit ${name}`)
        : Number(value);
    } catch (err) {
      throw new StowageError("usage", (err as Error).message);
    }
  }
  return out;
}

function isBehind(ev: PollOutcome): boolean {
  return ev.stoppedBy !== null && !ev.failing;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

function budgetLine(f: Follow): string {
  const b = f.pollLimits;
  return (
    `stowage logs: following, a poll every ${seconds(f.intervalMs)}; budget per poll: LIST ${formatCount(b.listAttempts)} · GET ${formatCount(b.getAttempts)}` +
    ` · ${formatBytes(b.downloadBytes)} download · ${formatCount(b.records)} records · ${formatBytes(b.decodedBytes)} decoded\n`
  );
}

function pollLine(ev: PollOutcome & { poll: number }): string {
  const s = ev.spend;
  const hours = ev.hours.map((h) => new Date(h).toISOString().slice(11, 13)).join(", ");
  return (
    `stowage logs: poll ${formatCount(ev.poll)} (hours ${hours} UTC): ${formatCount(s.recordsReturned)} new records (${formatCount(s.records)} analysed)` +
    ` · ${spend(s)}${ev.stoppedBy ? ` · stopped by ${ev.stoppedBy}` : ""}\n`
  );
}

function spend(s: FollowStats["spent"]): string {
  return (
    `LIST ${formatCount(s.listRequests)} · GET ${formatCount(s.getRequests)}${s.retries ? ` (${formatCount(s.retries)} retries)` : ""}` +
    ` · ${formatBytes(s.downloadedBytes)} downloaded · ${formatBytes(s.decodedBytes)} decoded` +
    ` · objects ${formatCount(s.objectsRead)} read, ${formatCount(s.objectsSkipped)} skipped${s.objectsUnverified ? `, ${formatCount(s.objectsUnverified)} unverified` : ""}, ${formatCount(s.objectsCached)} cached`
  );
}

/** What the whole follow spent: the first read, then all polls together. */
function spendLine(st: FollowStats, ended: string): string {
  const f = st.first;
  const first = f
    ? `first read: LIST ${formatCount(f.listRequests)} · GET ${formatCount(f.getRequests)} · ${formatBytes(f.downloadedBytes)} downloaded · grants ${f.grantsUsed}/${f.maxGrants}`
    : "first read: not finished";
  return (
    `stowage logs: follow ${ended} · ${formatCount(st.recordsShown)} records shown · ${first}` +
    ` · ${formatCount(st.polls)} polls${st.failedPolls ? ` (${formatCount(st.failedPolls)} failed)` : ""}: ${spend(st.spent)}\n`
  );
}
