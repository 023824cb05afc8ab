/**
 * `stowage compact [--config F | --source URL] [--dest PREFIX] [--from T] [--to T]
 * [--settle D] [--column name[=path]:type …] [--json]` (docs/compaction.md): sealed hours
 * of the v1 log tree → Hive-partitioned Parquet beside it, exactly once. One line per hour
 * (stderr redraws the hour in progress on a TTY); `--json` prints one summary on stdout.
 * Exit 0 every hour compacted or up to date (hours another compactor holds are named),
 * 1 an hour failed, 2 config/usage error.
 */
import type { Command } from "commander";
import { formatBytes, formatCount } from "../../shared/bytes.js";
import type { CliIo, SetExitCode } from "../io.js";
import {
  addSourceFlags,
  collect,
  sourceOptionsFromFlags,
  type SourceFlags,
} from "../source-flags.js";
import { loadCheckedPlan } from "./doctor.js";

interface CompactFlags extends SourceFlags {
  config: string[];
  source?: string;
  dest?: string;
  from: string;
  to: string;
  settle: string;
  lease: string;
  column: string[];
  fileRows?: string;
  rowGroupRows?: string;
  json?: boolean;
}

const CLEAR_LINE = "\r\x1b[2K";

/** `15m`, `90s`, `2h`, `0` → ms. */
function durationMs(
  text: string,
  what: string,
  StowageError: typeof import("../../shared/errors.js").StowageError,
): number {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m)
    throw new StowageError("usage", `${what} "${text}" is not a duration such as 15m, 90s, 2h`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? "ms"]!;
  return Number(m[1]) * unit;
}

function count(
  text: string,
  what: string,
  StowageError: typeof import("../../shared/errors.js").StowageError,
): number {
  const n = Number(text.replaceAll(",", "").replaceAll("_", ""));
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new StowageError("usage", `${what} "${text}" is not a positive whole number`);
  return n;
}

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  const cmd = program
    .command("compact")
    .description(
      "compact sealed hours of the v1 logs into Hive-partitioned Parquet (dt=/hour=) that query engines read, exactly once",
    )
    .option(
      "--config <file>",
      "logger config (repeatable); default: stowage.config.* here",
      collect,
      [],
    )
    .option("--source <url>", "the log tree instead of a config: s3://bucket/prefix or file:///dir")
    .option(
      "--dest <prefix>",
      "where the partitions go (default: <prefix>/parquet/; never inside v1/)",
    )
    .option("--from <time>", "first hour: ISO time or relative (7d, 24h)", "7d")
    .option("--to <time>", "end of the range (only sealed hours are compacted)", "now")
    .option("--settle <duration>", "an hour is sealed this long after it ends", "15m")
    .option("--lease <duration>", "take over another host's unfinished claim after this", "30m")
    .option(
      "--column <name[=path]:type>",
      "promote data.<path> to a typed column (repeatable; string, int64, double, bool, timestamp)",
      collect,
      [],
    )
    .option("--file-rows <n>", "rows per Parquet part at most (default 2,097,152)")
    .option("--row-group-rows <n>", "rows per row group at most (default 65,536)")
    .option("--json", "print a JSON summary on stdout");
  addSourceFlags(cmd).action(async (flags: CompactFlags) => {
    const { StowageError } = await import("../../shared/errors.js");
    const { parseTimeArg } = await import("../../reader/index.js");
    const { compactLogs, parseColumnFlags } = await import("../../compact/index.js");
    const now = Date.now();
    const fromMs = parseTimeArg(flags.from, now, "--from");
    const toMs = parseTimeArg(flags.to, now, "--to");
    if (fromMs > toMs) throw new StowageError("usage", "--from must not be after --to");
    const columns = parseColumnFlags(flags.column);
    const target = await openTarget(flags, io);
    const controller = new AbortController();
    const stop = (sig: NodeJS.Signals) => controller.abort(new Error(`interrupted by ${sig}`));
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    const live = io.isTTY && !flags.json;
    let parts = 0;
    try {
      const summary = await compactLogs({
        store: target.store,
        prefix: target.prefix,
        dest: flags.dest,
        fromMs,
        toMs,
        nowMs: now,
        settleMs: durationMs(flags.settle, "--settle", StowageError),
        leaseMs: Math.max(1, durationMs(flags.lease, "--lease", StowageError)),
        columns,
        ...(flags.fileRows ? { fileRows: count(flags.fileRows, "--file-rows", StowageError) } : {}),
        ...(flags.rowGroupRows
          ? { rowGroupRows: count(flags.rowGroupRows, "--row-group-rows", StowageError) }
          : {}),
        objectLock: target.objectLock,
        signal: controller.signal,
        onPart: (p) => {
          parts++;
          if (live)
            io.err(
              `${CLEAR_LINE}${target.where}: part ${parts} ${p.key.split("/").slice(-3).join("/")} ${formatCount(p.rows)} rows`,
            );
        },
        onHour: (h) => {
          if (live) io.err(CLEAR_LINE);
          if (flags.json) return;
          const rows = h.generations.reduce((n, g) => n + g.rows, 0);
          const rejected = h.generations.reduce((n, g) => n + g.rejected, 0);
          const bytes = h.generations.reduce((n, g) => n + g.bytes, 0);
          const tag =
            h.status === "failed" ? "[FAIL] " : h.status === "in-progress" ? "[WAIT] " : "[OK]  ";
          const what =
            h.status === "failed"
              ? `${h.error?.code}: ${h.error?.message}`
              : h.status === "up-to-date"
                ? "up to date"
                : `${formatCount(rows)} rows in ${h.generations.reduce((n, g) => n + g.parts, 0)} part(s), ${formatBytes(bytes)}` +
                  `${rejected ? `, ${formatCount(rejected)} line(s) rejected` : ""}` +
                  `${h.generations.some((g) => g.resumed) ? " (resumed an unfinished claim)" : ""}`;
          io.out(
            `${tag}${h.hour}: ${what}${h.inProgress.length ? ` — ${h.inProgress.map((p) => `generation ${p.generation} held by run ${p.run.id} (${p.run.host}, pid ${p.run.pid})`).join("; ")}` : ""}\n`,
          );
          for (const f of h.foreign)
            io.out(`       skipped, not a v1 object of this hour: ${escape(f)}\n`);
        },
      });
      if (flags.json) io.out(`${JSON.stringify(summary, null, 2)}\n`);
      else {
        const t = summary.totals;
        io.out(
          `${summary.ok ? "[OK]  " : "[FAIL] "}${target.where} → ${summary.dest || "(bucket root)"}: ${t.hours} sealed hour(s), ${t.compacted} compacted, ${t.upToDate} up to date, ${t.inProgress} held by another compactor, ${t.failed} failed; ` +
            `${formatCount(t.rows)} rows, ${formatCount(t.rejected)} rejected, ${t.parts} part(s), ${formatBytes(t.bytes)}, ${t.retries} retries\n`,
        );
      }
      setExit(summary.ok ? 0 : 1);
    } catch (err) {
      // A failure outside one hour (listing a day, the bucket unreachable, no credentials):
      // the reader's wording and hint for it, as `stowage logs` gives.
      const { storageFailure } = await import("../../reader/read-errors.js");
      throw storageFailure(err, "compaction", target.where);
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      target.store.close();
    }
  });
}

/** Control characters of stored keys never reach the terminal. */
function escape(s: string): string {
  return s.replace(
    /[\x00-\x1f\x7f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

async function openTarget(flags: CompactFlags, io: CliIo) {
  const { StowageError } = await import("../../shared/errors.js");
  const { openStore } = await import("../../store/open-store.js");
  type Dest = import("../../config/destination.js").ResolvedDestination;
  let dest: Dest;
  if (flags.source) {
    if (flags.config.length)
      throw new StowageError("usage", "give either --source or --config, not both");
    if (/^file:\/\//i.test(flags.source)) {
      const { fileURLToPath } = await import("node:url");
      const path = fileURLToPath(flags.source);
      // A mistyped folder would otherwise be an empty store: "0 sealed hours", exit 0.
      const { checkLocalRoot } = await import("../../reader/source.js");
      await checkLocalRoot(path);
      dest = { type: "local", path };
    } else {
      const { s3SourceDestination } = await import("../../config/s3-source.js");
      dest = s3SourceDestination(
        flags.source,
        { ...sourceOptionsFromFlags(flags), trustedHosts: flags.trustEndpoint },
        io.env,
        "--source",
      );
    }
  } else {
    const plan = await loadCheckedPlan(flags.config, io, flags.trustEndpoint);
    const logs = plan.targets.filter((t) => t.kind !== "export");
    if (logs.length !== 1)
      throw new StowageError(
        "usage",
        logs.length === 0
          ? "no log destination in the config: give a logger config or --source"
          : "the configs name several log destinations: compact one at a time (--config F or --source URL)",
      );
    dest = logs[0]!.destination;
  }
  const { store } = openStore(dest, { env: io.env });
  return {
    store,
    prefix: dest.type === "s3" ? dest.prefix : "",
    objectLock: dest.type === "s3" ? dest.objectLock : undefined,
    where: dest.type === "s3" ? `s3://${dest.bucket}/${dest.prefix}` : `file://${dest.path}`,
  };
}
