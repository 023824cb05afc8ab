/**
 * Doctor's compaction check for a log destination that is being compacted (its compaction
 * state folder exists; docs/compaction.md): "v1 kept N days, Parquet kept M days" read from
 * the bucket's lifecycle rules, and a warning when v1 hours would expire before they are
 * compacted — the oldest v1 day still stored expires within two days and has hours without
 * a compaction manifest. Costs at most seven LISTs; read-only.
 */
import { resolveDest, STATE_DIR } from "../compact/layout.js";
import type { BucketLifecycleRule } from "../store/bucket-config.js";
import type { ObjectStore } from "../store/object-store.js";
import type { CheckResult, DoctorTarget } from "./types.js";

const DAY_MS = 86_400_000;
/** Warn when the oldest uncompacted v1 hour expires sooner than this. */
const WARN_AHEAD_MS = 2 * DAY_MS;

/** The shortest expiry of the enabled rules covering every key under `prefix`. */
export function expiryDays(
  rules: readonly BucketLifecycleRule[],
  prefix: string,
): number | undefined {
  const days = rules
    .filter((r) => r.enabled && r.prefix !== undefined && prefix.startsWith(r.prefix))
    .map((r) => r.expireDays)
    .filter((x): x is number => x !== undefined);
  return days.length ? Math.min(...days) : undefined;
}

async function firstFolder(store: ObjectStore, prefix: string, signal: AbortSignal) {
  const page = await store.list({ prefix, delimiter: "/", maxKeys: 1000, signal });
  return page.commonPrefixes?.[0];
}

/**
 * @example const check = await compactionCheck(target, store, rules, signal, Date.now());
 */
export async function compactionCheck(
  target: DoctorTarget,
  store: ObjectStore,
  rules: readonly BucketLifecycleRule[],
  signal: AbortSignal,
  nowMs: number,
  suffix = "",
): Promise<CheckResult | undefined> {
  const d = target.destination;
  if (d.type !== "s3" || (target.kind ?? "logs") !== "logs") return undefined;
  const dest = resolveDest(d.prefix);
  const state = `${dest}${STATE_DIR}/`;
  const any = await store.list({ prefix: state, maxKeys: 1, signal });
  if (any.entries.length === 0) return undefined; // not compacted here: nothing to say
  const v1 = `${d.prefix ? `${d.prefix}/` : ""}v1/`;
  const n = expiryDays(rules, v1);
  const m = expiryDays(rules, dest);
  const name = `Compaction (v1 kept ${n ?? "∞"} d, Parquet kept ${m ?? "∞"} d)${suffix}`;
  const warnings: string[] = [];
  const hints: string[] = [];
  if (n !== undefined && m !== undefined && m < n) {
    warnings.push(
      `compacted hours under ${dest} expire after ${m} days, before their v1 objects (${n} days)`,
    );
    hints.push("keep Parquet at least as long as v1: stowage policy --lifecycle --parquet-days N");
  }
  if (n !== undefined) {
    // The oldest day still stored: year, month, day folders (three delimiter LISTs).
    let folder: string | undefined = v1;
    for (let level = 0; level < 3 && folder; level++)
      folder = await firstFolder(store, folder, signal);
    const m3 = folder ? /(\d{4})\/(\d{2})\/(\d{2})\/$/.exec(folder) : null;
    if (folder && m3) {
      const dayMs = Date.UTC(Number(m3[1]), Number(m3[2]) - 1, Number(m3[3]));
      const expiresInMs = dayMs + n * DAY_MS - nowMs;
      if (expiresInMs < WARN_AHEAD_MS) {
        const hours = (
          (await store.list({ prefix: folder, delimiter: "/", signal })).commonPrefixes ?? []
        ).map((p) => p.slice(folder.length, folder.length + 2));
        const dt = `${m3[1]}-${m3[2]}-${m3[3]}`;
        const stateKeys = (await store.list({ prefix: `${state}dt=${dt}/`, signal })).entries.map(
          (e) => e.key,
        );
        const done = new Set(
          stateKeys
            .filter((k) => /\/manifest-\d{6}\.json$/.test(k))
            .map((k) => /hour=(\d{2})\//.exec(k)?.[1]),
        );
        const open = hours.filter((h) => !done.has(h));
        if (open.length > 0) {
          warnings.push(
            `${open.length} v1 hour(s) of ${dt} (${open.join(", ")}) expire in ${Math.max(0, Math.round(expiresInMs / 3_600_000))} h and have no compaction manifest: they would be lost to the Parquet tables`,
          );
          hints.push(
            `run stowage compact --from ${dt}T00:00:00Z --to ${dt}T23:59:59Z now, and schedule it at least daily`,
          );
        }
      }
    }
  }
  if (warnings.length === 0) return { name, ok: true };
  return { name, ok: true, warning: warnings.join("; "), hint: hints.join("; ") };
}
