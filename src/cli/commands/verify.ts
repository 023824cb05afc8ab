/**
 * `stowage verify [--config F] [--from T] [--to T] [--depth metadata|full] [--json]`:
 * proves that the log objects of a time range are intact (stored SHA-256, format-v1
 * metadata consistent with the key, bytes re-hashed and lines counted at --depth
 * full) and, when the config sets `objectLock`, locked long enough.
 * Exit 0 all intact, 3 an integrity failure, 1 could not verify, 2 config/usage error.
 */
import type { Command } from "commander";
import type { CliIo, SetExitCode } from "../io.js";
import { collect } from "../source-flags.js";
import { loadCheckedPlan } from "./doctor.js";

interface VerifyFlags {
  config: string[];
  from: string;
  to: string;
  depth: string;
  json?: boolean;
  trustEndpoint: string[];
}

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  program
    .command("verify")
    .description(
      "prove the log objects of a time range are intact and locked as configured (exit 0 ok, 3 integrity failure, 1 could not verify)",
    )
    .option(
      "--config <file>",
      "logger config (repeatable); default: stowage.config.* here",
      collect,
      [],
    )
    .option("--from <time>", "start of the range: ISO time or relative (7d, 24h)", "24h")
    .option("--to <time>", "end of the range", "now")
    .option(
      "--depth <depth>",
      "metadata (HEAD each object) or full (download, re-hash, count lines)",
      "metadata",
    )
    .option("--json", "print a JSON report on stdout")
    .option(
      "--trust-endpoint <host>",
      "trust this endpoint host while reading the config (repeatable)",
      collect,
      [],
    )
    .action(async (flags: VerifyFlags) => {
      const { StowageError, isStowageError } = await import("../../shared/errors.js");
      if (flags.depth !== "metadata" && flags.depth !== "full")
        throw new StowageError("usage", `--depth must be metadata or full, not "${flags.depth}"`);
      const { parseTimeArg } = await import("../../reader/index.js");
      const now = Date.now();
      const fromMs = parseTimeArg(flags.from, now, "--from");
      const toMs = parseTimeArg(flags.to, now, "--to");
      if (fromMs > toMs) throw new StowageError("usage", "--from must not be after --to");
      const plan = await loadCheckedPlan(flags.config, io, flags.trustEndpoint);
      const targets = plan.targets.filter((t) => t.kind !== "export");
      const exportFiles = [
        ...new Set(plan.targets.flatMap((t) => (t.kind === "export" && t.file ? [t.file] : []))),
      ];
      const exportReports = [];
      let exportIntegrity = false;
      for (const file of exportFiles) {
        const { verifyExportFile } = await import("./verify-export.js");
        const out = await verifyExportFile(file, flags.depth, io, flags.trustEndpoint, !flags.json);
        exportReports.push(...out.reports);
        exportIntegrity ||= out.integrity;
        if (out.unverified) {
          if (flags.json)
            io.out(`${JSON.stringify({ ok: false, exports: exportReports }, null, 2)}\n`);
          setExit(1);
          return;
        }
      }
      if (targets.length === 0) {
        if (flags.json)
          io.out(`${JSON.stringify({ ok: !exportIntegrity, exports: exportReports }, null, 2)}\n`);
        setExit(exportIntegrity ? 3 : 0);
        return;
      }
      const { openStore } = await import("../../store/open-store.js");
      const { verifyLogs } = await import("../../verify/verify-logs.js");
      const { escapeTerminal } = await import("../../record/terminal-safe.js");
      const reports = [];
      let failed = false;
      for (const t of targets) {
        const dest = t.destination;
        const where =
          dest.type === "s3" ? `s3://${dest.bucket}/${dest.prefix}` : `file://${dest.path}`;
        const { store } = openStore(dest, { env: io.env });
        try {
          const lock = dest.type === "s3" ? dest.objectLock : undefined;
          const expireDays = dest.type === "s3" ? dest.lifecycle?.expireDays : undefined;
          const report = await verifyLogs(store, {
            prefix: dest.type === "s3" ? dest.prefix : "",
            fromMs,
            toMs,
            depth: flags.depth,
            ...(lock ? { objectLock: lock } : {}),
            ...(expireDays !== undefined ? { expireDays } : {}),
            ...(io.isTTY && !flags.json
              ? {
                  onProgress: (p) =>
                    io.err(
                      `\r${where}: ${p.checked} objects checked, ${p.failures} failing, at ${new Date(p.hour).toISOString().slice(0, 13)}h `,
                    ),
                }
              : {}),
          });
          if (io.isTTY && !flags.json) io.err("\n");
          failed ||= !report.ok;
          reports.push({ target: where, ...report });
          if (!flags.json) {
            io.out(
              `${report.ok ? "[OK]  " : "[FAIL] "}${where}: ${report.checked} objects in ${report.hours} hours checked at depth ${report.depth}` +
                `${lock ? `, Object Lock ${lock.mode} ${lock.retainDays} d required` : ""} ` +
                `(${report.requests.list} LIST, ${report.requests.head} HEAD, ${report.requests.get} GET)\n`,
            );
            // Keys and problems come from storage: a hostile key must not drive the terminal.
            for (const f of report.failures)
              io.out(
                `  ${escapeTerminal(f.key)}\n${f.problems.map((p) => `    - ${escapeTerminal(p)}\n`).join("")}`,
              );
          }
        } catch (err) {
          if (isStowageError(err, "config", "usage", "policy")) throw err;
          const { classifyError } = await import("../../store/classify-error.js");
          const c = classifyError(err);
          throw new StowageError(
            "storage",
            // The provider's message may name a stored key: escaped like the findings.
            escapeTerminal(
              `could not verify ${where}: ${c.category === "other" ? "" : `${c.category} — `}${c.code}${c.status ? ` (HTTP ${c.status})` : ""}: ${c.message}`,
            ),
            {
              cause: err,
              hint: "run `stowage doctor` to check credentials, bucket, region and endpoint",
            },
          );
        } finally {
          store.close();
        }
      }
      failed ||= exportIntegrity;
      if (flags.json)
        io.out(
          `${JSON.stringify({ ok: !failed, targets: reports, ...(exportReports.length ? { exports: exportReports } : {}) }, null, 2)}\n`,
        );
      setExit(failed ? 3 : 0);
    });
}
