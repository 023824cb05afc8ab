/**
 * `stowage validate --config export.yaml [--export NAME] [--depth metadata|full]`
 * (SPEC §7.2): checks each export's last committed run against its manifest.
 * Exit 0 all ok, 3 an integrity failure (incomplete, missing or altered object),
 * 1 could not verify (storage unreachable, access denied), 2 config error.
 */
import type { Command } from "commander";
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
      const { loadExportConfig, selectExports } = await import("../../export/config.js");
      const { openExportStore } = await import("../../export/session.js");
      const { validateExport } = await import("../../export/validate.js");
      const { formatBytes, formatCount } = await import("../../shared/bytes.js");
      const cfg = await loadExportConfig(flags.config, {
        env: io.env,
        cwd: io.cwd,
        ...(flags.trustEndpoint ? { trustedHosts: flags.trustEndpoint } : {}),
        needSource: false, // validate reads only the bucket
      });
      const exports = selectExports(cfg, flags.export);
      const date = flags.date ? new Date(`${flags.date}T00:00:00Z`) : undefined;
      const report: Record<string, unknown>[] = [];
      let integrity = 0;
      let unverified = 0;
      for (const exp of exports) {
        const store = openExportStore(cfg, exp, io.env);
        try {
          const r = await validateExport(exp, {
            store,
            depth: flags.depth,
            maxAttempts: cfg.tuning.maxAttempts,
            ...(date ? { date } : {}),
          });
          report.push({ ...r });
          if (!r.ok) integrity++;
          if (flags.json) continue;
          if (r.ok)
            io.out(
              `[OK]  ${r.export}: run ${r.runId}, ${r.parts} object(s), ${formatCount(r.rows)} rows, ${formatBytes(r.bytes)} verified (${r.depth})\n`,
            );
          else io.out(`[FAIL] ${r.export} -- ${r.status}: ${r.problems.join("; ")}\n`);
        } catch (err) {
          unverified++;
          const e = err as { code?: string; message?: string; hint?: string };
          report.push({
            export: exp.name,
            ok: false,
            status: "unverified",
            error: { code: e.code ?? "internal", message: e.message ?? String(err) },
          });
          if (!flags.json)
            io.out(
              `[FAIL] ${exp.name} -- could not verify: ${e.message ?? String(err)}\n${e.hint ? `Hint: ${e.hint}\n` : ""}`,
            );
        } finally {
          store.close();
        }
      }
      if (flags.json)
        io.out(
          JSON.stringify({ ok: integrity + unverified === 0, exports: report }, null, 2) + "\n",
        );
      setExit(integrity ? 3 : unverified ? 1 : 0);
    });
}
