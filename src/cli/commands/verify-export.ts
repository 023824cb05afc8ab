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
  const { loadExportConfig, selectExports } = await import("../../export/config.js");
  const { openExportStore } = await import("../../export/session.js");
  const { validateExport } = await import("../../export/validate.js");
  const { escapeTerminal } = await import("../../record/terminal-safe.js");
  const cfg = await loadExportConfig(file, { env: io.env, cwd: io.cwd, trustedHosts });
  const out: ExportVerifyOutcome = { reports: [], integrity: false, unverified: false };
  for (const exp of selectExports(cfg, undefined)) {
    const store = openExportStore(cfg, exp, io.env);
    try {
      const r = await validateExport(exp, {
        store,
        depth,
        maxAttempts: cfg.tuning.maxAttempts,
        retention: true,
      });
      out.reports.push({ ...r });
      out.integrity ||= !r.ok;
      const lock = exp.destination.type === "s3" ? exp.destination.objectLock : undefined;
      if (print)
        io.out(
          r.ok
            ? `[OK]  export ${r.export}: run ${r.runId}, ${r.parts} object(s) checked at depth ${r.depth}${lock ? `, Object Lock ${lock.mode} ${lock.retainDays} d required` : ""}\n`
            : // Problems name stored keys (a manifest's, too): escaped, as stowage logs prints records.
              `${escapeTerminal(`[FAIL] export ${r.export} -- ${r.status}: ${r.problems.join("; ")}`)}\n`,
        );
    } catch (err) {
      out.unverified = true;
      const e = err as { code?: string; message?: string };
      out.reports.push({ export: exp.name, ok: false, status: "unverified", error: e.message });
      io.err(
        `${escapeTerminal(`stowage verify: could not verify export ${exp.name}: ${e.message ?? String(err)}`)}\n`,
      );
      return out;
    } finally {
      store.close();
    }
  }
  return out;
}
