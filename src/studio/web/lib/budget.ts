/** The budget meter's words: per-grant usage against the allowances, and which allowance stopped a grant. */
import type { GrantLimits, GrantUsage, LimitName, ReadStats } from "../../api-types.js";
import { fmtBytes, fmtCount, fmtMiB } from "./format.js";

export interface MeterItem {
  id: string;
  label: string;
  /** Fraction of the allowance used (0..1), for the bar under the number. */
  ratio: number;
  tip: string;
}

/** "stopped at the 20,000-record allowance" */
export function stoppedWords(limit: LimitName | null, limits: GrantLimits): string | null {
  switch (limit) {
    case null:
      return null;
    case "records":
      return `stopped at the ${fmtCount(limits.records)}-record allowance`;
    case "listAttempts":
      return `stopped at the ${limits.listAttempts}-LIST-request allowance`;
    case "getAttempts":
      return `stopped at the ${limits.getAttempts}-GET-request allowance`;
    case "downloadBytes":
      return `stopped at the ${fmtBytes(limits.downloadBytes)} download allowance`;
    case "decodedBytes":
      return `stopped at the ${fmtBytes(limits.decodedBytes)} decoded-bytes allowance`;
    case "maxGrants":
      return `all ${limits.maxGrants} grants of this session are used`;
  }
}

/**
 * The meter: `LIST 12/20 · GET 40/64 · 8.1/16 MiB downloaded · 14,200/20,000 records · grant 2/5`.
 * Per-grant numbers are the last grant's; tooltips give the session totals.
 */
export function meterItems(
  last: GrantUsage | null,
  stats: ReadStats | null,
  limits: GrantLimits,
): MeterItem[] {
  const u = last ?? {
    listRequests: 0,
    getRequests: 0,
    downloadedBytes: 0,
    decodedBytes: 0,
    records: 0,
  };
  const s = stats;
  const total = (n: number | undefined, what: string) =>
    s ? ` This session so far: ${n} ${what}.` : " Nothing is loaded yet.";
  return [
    {
      id: "list",
      label: `LIST ${u.listRequests}/${limits.listAttempts}`,
      ratio: u.listRequests / limits.listAttempts,
      tip: `LIST requests in the last grant / allowed per grant (retries count). Only the hour folders of the range are listed.${total(s?.listRequests, "LIST requests")}`,
    },
    {
      id: "get",
      label: `GET ${u.getRequests}/${limits.getAttempts}`,
      ratio: u.getRequests / limits.getAttempts,
      tip: `GET requests (object downloads) in the last grant / allowed per grant. Cached objects cost none.${total(s?.getRequests, "GET requests")}`,
    },
    {
      id: "bytes",
      label:
        u.downloadedBytes > 0 && u.downloadedBytes < 0.1 * 1024 * 1024
          ? `${fmtBytes(u.downloadedBytes)}/${fmtMiB(limits.downloadBytes)} MiB downloaded`
          : `${fmtMiB(u.downloadedBytes)}/${fmtMiB(limits.downloadBytes)} MiB downloaded`,
      ratio: u.downloadedBytes / limits.downloadBytes,
      tip: `Compressed bytes downloaded in the last grant / allowed per grant (observed payload, not a bill). Decoded: ${fmtBytes(u.decodedBytes)} of ${fmtBytes(limits.decodedBytes)}.${s ? ` This session so far: ${fmtBytes(s.downloadedBytes)}.` : " Nothing is loaded yet."}`,
    },
    {
      id: "records",
      label: `${fmtCount(u.records)}/${fmtCount(limits.records)} records`,
      ratio: u.records / limits.records,
      tip: `Records analysed in the last grant / allowed per grant.${total(s?.records, "records")}`,
    },
    {
      id: "grants",
      label: `grant ${s?.grantsUsed ?? 0}/${limits.maxGrants}`,
      ratio: (s?.grantsUsed ?? 0) / limits.maxGrants,
      tip: `Grants used / allowed per session. Load logs starts a session with one grant; each Load more or refresh adds one.${s ? ` Objects read ${s.objectsRead}, from cache ${s.objectsCached}, skipped ${s.objectsSkipped}.` : ""}`,
    },
  ];
}

/** What one load may spend, for the empty state. */
export function allowanceSentence(l: GrantLimits): string {
  return `${l.listAttempts} LIST · ${l.getAttempts} GET · ${fmtBytes(l.downloadBytes)} downloaded · ${fmtCount(l.records)} records · ${fmtBytes(l.decodedBytes)} decoded`;
}
