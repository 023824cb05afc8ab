/**
 * `stowage verify` over export files: each export's last committed run is checked
 * as `stowage validate` checks it, plus every part's stored SHA-256 and, with
 * `object_lock`, its retention (docs/retention.md). Prints one line per export.
 */
import type { CliIo } from "../io.js";

export interface ExportVerifyOutcome {
  reports: Record<string, unknown>[];
  /** At least one export failed a check (exit 3). */
  integrity: boolean;
  /** An export could not be checked (exit 1). */
  unverified: boolean;
}

/** @example const out = await verifyExportFile("export.yaml", "full", io, []); */
export async function verifyExportFile(
  file: string,
  depth: "metadata" | "full",
  io: CliIo,
  trustedHosts: string[],
  print = true,
): Promise<ExportVerifyOutcome> {
  const { openExportFile, validateExportFile } = await import("../../export/export-file.js");
  const { escapeTerminal } = await import("../../record/terminal-safe.js");
  const opened = await openExportFile(file, { env: io.env, cwd: io.cwd, trustedHosts });
  const out: ExportVerifyOutcome = { reports: [], integrity: false, unverified: false };
  // Stops at the first export it cannot check (the rest would likely fail alike).
  for await (const o of validateExportFile(opened, { env: io.env, depth, retention: true })) {
    if (o.error) {
      out.unverified = true;
      out.reports.push({
        export: o.export.name,
        ok: false,
        status: "unverified",
        error: o.error.message,
      });
      io.err(
        `${escapeTerminal(`stowage verify: could not verify export ${o.export.name}: ${o.error.message}`)}\n`,
      );
      return out;
    }
    const r = o.result;
    out.reports.push({ ...r });
    out.integrity ||= !r.ok;
    const dest = o.export.destination;
    const lock = dest.type === "s3" ? dest.objectLock : undefined;
    if (print)
      io.out(
        r.ok
          ? `[OK]  export ${r.export}: run ${r.runId}, ${r.parts} object(s) checked at depth ${r.depth}${lock ? `, Object Lock ${lock.mode} ${lock.retainDays} d required` : ""}\n`
          : // Problems name stored keys (a manifest's, too): escaped, as stowage logs prints records.
            `${escapeTerminal(`[FAIL] export ${r.export} -- ${r.status}: ${r.problems.join("; ")}`)}\n`,
      );
  }
  return out;
}
