/** Doctor's text report: `[OK]  <name>` / `[WARN] <name> -- <advice>` / `[FAIL] <name> -- <category>: <detail>` + `Hint:`, then the verdict. */
import type { DoctorReport } from "./types.js";

const INDENT = "       ";

/**
 * @example formatReport({ ok: true, checks: [{ name: "Destination S3(logs)", ok: true }] })
 * // "[OK]  Destination S3(logs)\nAll checks passed.\n"
 */
export function formatReport(report: DoctorReport): string {
  let out = "";
  for (const c of report.checks) {
    if (c.ok && c.warning) {
      out += `[WARN] ${c.name} -- ${c.warning.split("\n").join(`\n${INDENT}`)}\n`;
      if (c.hint) out += `${INDENT}Hint: ${c.hint.split("\n").join(`\n${INDENT}`)}\n`;
      continue;
    }
    if (c.ok) {
      out += `[OK]  ${c.name}\n`;
      continue;
    }
    const detail = (c.detail ?? "").split("\n").join(`\n${INDENT}`);
    out += `[FAIL] ${c.name} -- ${c.category ?? "config error"}: ${detail}\n`;
    if (c.hint) out += `${INDENT}Hint: ${c.hint.split("\n").join(`\n${INDENT}`)}\n`;
  }
  const failed = report.checks.filter((c) => !c.ok).length;
  out += failed === 0 ? "All checks passed.\n" : `${failed} check(s) failed.\n`;
  return out;
}
