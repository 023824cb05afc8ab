/**
 * `stowage logs` (SPEC §5.6): the bounded reader in the terminal. Pretty lines
 * or NDJSON (`--json`) on stdout, one stats line (and skipped objects) on stderr;
 * `--more N` spends up to N further grants; `--follow` then keeps polling (logs-follow.ts).
 * Exit 2 on a bad range or usage, 1 when storage fails (with what to do next), 130 on
 * Ctrl-C (after the stats line).
 */
import type { Command } from "commander";
import { LEVEL_ALIASES, LEVEL_VALUES, parseLevel, type Level } from "../../record/levels.js";
import { isStowageError, StowageError } from "../../shared/errors.js";
import { parseBytes } from "../../shared/bytes.js";
import type { LoadResult, LogRecordLike } from "../../reader/index.js";
import type { CliIo, SetExitCode } from "../io.js";
import {
  addSourceFlags,
  collect,
  sourceOptionsFromFlags,
  type SourceFlags,
} from "../source-flags.js";
import { print, statsLine } from "./logs-print.js";

interface LogsOptions extends SourceFlags {
  source: string;
  from: string;
  to: string;
  level?: string;
  grep?: string;
  where: string[];
  json?: boolean;
  more: string;
  limit: string[];
  follow?: boolean;
  interval: string;
  stats?: boolean;
  pollLimit: string[];
}

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  const cmd = program
    .command("logs")
    .description(
      "read logs back from s3://bucket/prefix or file:///dir under a hard per-grant budget",
    )
    .requiredOption(
      "--source <url>",
      "s3://bucket/prefix, or file:///dir (the directory holding v1/)",
    )
    .option(
      "--from <time>",
      "start: ISO-8601, epoch ms, now, or a duration ago (30m, 2h, 7d)",
      "1h",
    )
    .option("--to <time>", "end, exclusive (same forms); default now");
  addSourceFlags(cmd)
    .option("--level <level>", "minimum level (trace … critical)")
    .option("--grep <text>", "case-insensitive text anywhere in the record")
    .option(
      "--where <field=value>",
      "field equals value; dotted paths like data.route (repeatable)",
      collect,
      [],
    )
    .option("--json", "NDJSON on stdout")
    .option("--more <n>", "spend up to N more grants after the first", "0")
    .option(
      "--limit <name=value>",
      "override a per-grant allowance, e.g. records=50000, downloadBytes=32MiB (repeatable)",
      collect,
      [],
    )
    .option(
      "--follow",
      "after the first grant, keep polling the newest hour and print new records in time order (Ctrl-C stops)",
    )
    .option("--interval <duration>", "with --follow: wait between polls (500ms, 2s, 1m)", "2s")
    .option("--stats", "with --follow: print the budget per poll and what each poll spent")
    .option(
      "--poll-limit <name=value>",
      "with --follow: override a per-poll allowance, e.g. getAttempts=8, downloadBytes=4MiB (repeatable)",
      collect,
      [],
    )
    .action(async (opts: LogsOptions) => {
      const { openSource, parseTimeArg } = await import("../../reader/index.js");
      const now = Date.now();
      const from = parseTimeArg(opts.from, now, "--from");
      if (opts.follow && opts.to !== undefined)
        throw new StowageError(
          "usage",
          "--follow reads up to now and then keeps following: drop --to (or drop --follow to read a closed range)",
        );
      if (!opts.follow && (opts.stats || opts.pollLimit.length > 0))
        throw new StowageError("usage", "--stats and --poll-limit go with --follow");
      const to = parseTimeArg(opts.to ?? "now", now, "--to");
      const more = Number(opts.more);
      if (!Number.isInteger(more) || more < 0)
        throw new StowageError(
          "usage",
          `--more must be a whole number of grants (0 or more), got "${opts.more}"`,
        );
      const filter = buildFilter(opts);
      const limits = parseLimits(opts.limit);
      const source = openSource(opts.source, {
        ...sourceOptionsFromFlags(opts),
        trustedHosts: opts.trustEndpoint,
        env: io.env,
        cwd: io.cwd,
      });
      // Ctrl-C aborts the grant in flight (its LISTs/GETs stop at once); what was printed
      // stays, the stats line says what was spent, exit 130.
      const interrupt = new AbortController();
      const onSigint = () => interrupt.abort();
      process.once("SIGINT", onSigint);
      if (opts.follow) {
        const { followLogs, parseInterval, parsePollLimits } = await import("./logs-follow.js");
        try {
          await followLogs(
            io,
            setExit,
            source,
            {
              from,
              limits,
              more,
              pollLimits: parsePollLimits(opts.pollLimit),
              intervalMs: parseInterval(opts.interval),
              signal: interrupt.signal,
              ...(filter ? { filter } : {}),
            },
            { json: opts.json === true, stats: opts.stats === true, more },
          );
        } finally {
          process.off("SIGINT", onSigint);
          source.close();
        }
        return;
      }
      const session = source.query({
        from,
        to,
        limits,
        signal: interrupt.signal,
        ...(filter ? { filter } : {}),
      });
      let result: LoadResult | undefined;
      try {
        result = await session.load();
        print(io, result, opts.json === true);
        for (
          let i = 0;
          i < more && result.partial && result.stats.grantsUsed < result.stats.maxGrants;
          i++
        ) {
          result = await session.more();
          print(io, result, opts.json === true);
        }
        io.err(statsLine(result.stats, result.complete, more));
        if (
          result.lastError &&
          (result.stats.stoppedBy === "listAttempts" || result.stats.stoppedBy === "getAttempts")
        ) {
          io.err(
            `stowage logs: storage kept failing (${result.lastError}); the output above is incomplete. Retry later, or run \`stowage doctor\`.\n`,
          );
          setExit(1);
        }
      } catch (err) {
        if (!interrupt.signal.aborted || !isStowageError(err, "aborted")) throw err;
        io.err(statsLine(session.stats, false, more, "interrupted"));
        io.err("stowage logs: interrupted; the records above are those read before Ctrl-C\n");
        setExit(130);
      } finally {
        process.off("SIGINT", onSigint);
        source.close();
      }
    });
}

const BYTE_LIMITS = new Set(["downloadBytes", "decodedBytes"]);

/** `--limit records=500` → `{ records: 500 }`; byte allowances take sizes like 32MiB. */
function parseLimits(given: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of given) {
    const m = /^([A-Za-z]+)=(.+)$/.exec(item.trim());
    if (!m)
      throw new StowageError(
        "usage",
        `--limit "${item}" must look like name=value, e.g. records=50000`,
      );
    const [, name, value] = m as unknown as [string, string, string];
    try {
      out[name] = BYTE_LIMITS.has(name) ? parseBytes(value, `--limit ${name}`) : Number(value);
    } catch (err) {
      throw new StowageError("usage", (err as Error).message);
    }
  }
  return out;
}

function buildFilter(opts: LogsOptions): ((r: LogRecordLike) => boolean) | undefined {
  const tests: ((r: LogRecordLike) => boolean)[] = [];
  if (opts.level !== undefined) {
    let min: Level;
    try {
      min = parseLevel(opts.level, "--level");
    } catch (err) {
      throw new StowageError("usage", (err as Error).message);
    }
    tests.push((r) => {
      const name = String(r.level ?? "").toLowerCase();
      const level = (Object.hasOwn(LEVEL_VALUES, name) ? name : LEVEL_ALIASES[name]) as
        Level | undefined;
      return level !== undefined && LEVEL_VALUES[level] >= LEVEL_VALUES[min];
    });
  }
  if (opts.grep) {
    const needle = opts.grep.toLowerCase();
    tests.push((r) => JSON.stringify(r).toLowerCase().includes(needle));
  }
  for (const w of opts.where) {
    const eq = w.indexOf("=");
    if (eq <= 0)
      throw new StowageError(
        "usage",
        `--where "${w}" must look like field=value (dotted paths allowed: data.route=/orders)`,
      );
    const path = w.slice(0, eq).split(".");
    const want = w.slice(eq + 1);
    tests.push((r) => {
      const v = path.reduce<unknown>(
        (o, k) =>
          o !== null && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined,
        r,
      );
      return v !== undefined && (typeof v === "object" ? JSON.stringify(v) : String(v)) === want;
    });
  }
  return tests.length ? (r) => tests.every((t) => t(r)) : undefined;
}
