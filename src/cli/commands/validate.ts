/**
 * `stowage validate --config export.yaml [--export NAME] [--depth metadata|full]`
 * (SPEC §7.2): checks each export's last committed run against its manifest.
 * Exit 0 all ok, 3 an integrity failure (incomplete, missing or altered object),
 * 1 could not verify (storage unreachable, access denied), 2 config error.
 */
import type { Command } from "commander";
import { formatBytes, formatCount } from "../../shared/bytes.js";
import type { CliIo, SetExitCode } from "../io.js";

interface ValidateFlags {
  config: string;
  export?: string;
  depth: string;
  date?: string;
  json?: boolean;
  trustEndpoint?: string[];
}

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  program
    .command("validate")
    .description(
      "verify finished exports against their manifest (exit 0 ok, 3 integrity failure, 1 could not verify)",
    )
    .requiredOption("-c, --config <file>", "export YAML file")
    .option("-e, --export <name>", "validate only this export")
    .option(
      "--depth <depth>",
      "metadata (objects exist with their sizes) or full (re-download and re-hash)",
      "metadata",
    )
    .option("--date <YYYY-MM-DD>", "the run date for prefixes with {date} (default: today, UTC)")
    .option("--json", "print a JSON report on stdout")
    .option(
      "--trust-endpoint <host...>",
      "trust this non-loopback S3 endpoint host (docs/endpoint-policy.md)",
    )
    .action(async (flags: ValidateFlags) => {
      const { StowageError } = await import("../../shared/errors.js");
      if (flags.depth !== "metadata" && flags.depth !== "full")
        throw new StowageError("usage", `--depth must be metadata or full, not "${flags.depth}"`);
      if (flags.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(flags.date))
        throw new StowageError("usage", "--date must be YYYY-MM-DD");
      const { openExportFile, validateExportFile } = await import("../../export/export-file.js");
      const file = await openExportFile(flags.config, {
        env: io.env,
        cwd: io.cwd,
        ...(flags.trustEndpoint ? { trustedHosts: flags.trustEndpoint } : {}),
        needSource: false, // validate reads only the bucket
        only: flags.export,
      });
      const report: Record<string, unknown>[] = [];
      let integrity = 0;
      let unverified = 0;
      for await (const o of validateExportFile(file, {
        env: io.env,
        depth: flags.depth,
        date: flags.date ? new Date(`${flags.date}T00:00:00Z`) : undefined,
      })) {
        if (o.error) unverified++;
        else if (!o.result.ok) integrity++;
        report.push(validateEntry(o));
        if (!flags.json) io.out(validateLine(o));
      }
      if (flags.json)
        io.out(
          JSON.stringify({ ok: integrity + unverified === 0, exports: report }, null, 2) + "\n",
        );
      setExit(integrity ? 3 : unverified ? 1 : 0);
    });
}

type Outcome = import("../../export/export-file.js").ExportOutcome<
  import("../../export/validate.js").ValidateResult
>;

/** One export's entry in `validate --json`. */
function validateEntry(o: Outcome): Record<string, unknown> {
  if (!o.error) return { ...o.result };
  const { code, message } = o.error;
  return { export: o.export.name, ok: false, status: "unverified", error: { code, message } };
}

/** One export's line: verified, what failed, or why it could not be checked. */
function validateLine(o: Outcome): string {
  if (o.error)
    return `[FAIL] ${o.export.name} -- could not verify: ${o.error.message}\n${o.error.hint ? `Hint: ${o.error.hint}\n` : ""}`;
  const r = o.result;
  return r.ok
    ? `[OK]  ${r.export}: run ${r.runId}, ${r.parts} object(s), ${formatCount(r.rows)} rows, ${formatBytes(r.bytes)} verified (${r.depth})\n`
    : `[FAIL] ${r.export} -- ${r.status}: ${r.problems.join("; ")}\n`;
}
