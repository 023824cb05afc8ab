/**
 * "Copy AI context" (SPEC §5.4): a compact, plain-text block describing what is
 * on screen — source, range, filters, counts, the partial warning, the selected
 * or newest matching records as stored, and the error groups. Built locally;
 * no key, no network.
 */
import type { GrantLimits, LimitName, ReadStats } from "../../api-types.js";
import type { ErrorGroup } from "./error-groups.js";
import { fmtBytes, fmtCount, fmtSpan } from "./format.js";
import { stoppedWords } from "./budget.js";
import type { Row } from "./rows.js";

export interface AiContextInput {
  source: string;
  from: number;
  to: number;
  window: { from: number; to: number } | null;
  search: string;
  chips: string[];
  loaded: number;
  stats: ReadStats | null;
  partial: boolean;
  stoppedBy: LimitName | null;
  limits: GrantLimits;
  /** The matching rows, in display order (newest first). */
  visible: Row[];
  selected: Row | null;
  groups: ErrorGroup[];
  topN?: number;
  maxRecordChars?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

function recordLine(row: Row, max: number): string {
  const json = JSON.stringify(row.rec);
  return json.length > max
    ? `${json.slice(0, max)}…(truncated ${fmtCount(json.length - max)} chars)`
    : json;
}

/**
 * @example navigator.clipboard.writeText(buildAiContext({ ...state }))
 */
export function buildAiContext(input: AiContextInput): string {
  const topN = input.topN ?? 20;
  const max = input.maxRecordChars ?? 4000;
  const out: string[] = [];
  out.push("# Log context from Stowage Studio");
  out.push(`source: ${input.source}`);
  out.push(`range: ${iso(input.from)} → ${iso(input.to)} (${fmtSpan(input.to - input.from)}, UTC)`);
  if (input.window) out.push(`zoomed to: ${iso(input.window.from)} → ${iso(input.window.to)}`);
  const filters = [
    ...input.chips,
    ...(input.search.trim() ? [`search: ${input.search.trim()}`] : []),
  ];
  out.push(`filters: ${filters.length ? filters.join(" · ") : "none"}`);
  const s = input.stats;
  out.push(
    `loaded: ${fmtCount(input.loaded)} records` +
      (s
        ? ` (LIST ${s.listRequests}, GET ${s.getRequests}, ${fmtBytes(s.downloadedBytes)} downloaded, grant ${s.grantsUsed}/${s.maxGrants})`
        : ""),
  );
  out.push(
    `matching: ${fmtCount(input.visible.length)} records · ${input.groups.length} error group${input.groups.length === 1 ? "" : "s"}`,
  );
  if (input.partial) {
    const why = stoppedWords(input.stoppedBy, input.limits) ?? "stopped at an allowance";
    out.push(
      `WARNING: partial load (${why}); more records exist in this range than were loaded, so every count is a lower bound.`,
    );
  }
  if (input.groups.length) {
    out.push(
      "",
      `## Error groups (${Math.min(10, input.groups.length)} of ${input.groups.length}, by count)`,
    );
    for (const g of input.groups.slice(0, 10)) {
      const what = [g.name, g.message].filter(Boolean).join(": ");
      out.push(
        `- ${fmtCount(g.count)}× ${what}${g.caller ? ` @ ${g.caller}` : ""} (first ${iso(g.firstSeen)}, last ${iso(g.lastSeen)})`,
      );
    }
  }
  if (input.selected) {
    out.push(
      "",
      "## Selected record (as stored)",
      "```json",
      JSON.stringify(input.selected.rec, null, 2),
      "```",
    );
  }
  const rows = input.visible.filter((r) => r !== input.selected).slice(0, topN);
  if (rows.length) {
    out.push(
      "",
      `## ${input.selected ? "Other matching" : "Matching"} records (${rows.length} newest of ${fmtCount(input.visible.length)}, as stored, NDJSON)`,
      "```ndjson",
    );
    for (const r of rows) out.push(recordLine(r, max));
    out.push("```");
  }
  return out.join("\n") + "\n";
}
