/**
 * The export side of `stowage doctor --config export.yaml` (SPEC §2.5 item 7):
 * the export file is validated with the export rules, each export's destination
 * becomes a doctor target, and one `Source auth (Postgres|MySQL|SQLite)` check
 * connects to the database. Shapes mirror doctor's hook types structurally
 * (export and doctor are siblings and do not import each other).
 */
import type { ResolvedDestination } from "../config/destination.js";
import type { Env } from "../config/env.js";
import type { LoadedConfigFile } from "../config/load-config.js";
import { resolveExportConfig } from "./config.js";
import { resolvePrefix, stamp } from "./naming.js";
import { checkSourceAuth, sourceLabel } from "./session.js";

type Category = "auth error" | "connectivity error" | "config error";
type Outcome = { ok: true } | { ok: false; category: Category; detail: string; hint?: string };

interface Target {
  destination: ResolvedDestination;
  label?: string;
  file?: string;
  kind?: "logs" | "export";
  prefixTemplate?: string;
}

interface Check {
  name: string;
  run(ctx: { signal: AbortSignal; env: Env }): Promise<Outcome>;
}

const AUTH =
  /password authentication failed|no pg_hba\.conf entry|role .* does not exist|Access denied|28P01|28000|ER_ACCESS_DENIED/i;
const CONFIG =
  /database .* does not exist|Unknown database|3D000|ER_BAD_DB_ERROR|cannot open the SQLite database/i;

/** Maps a connection failure to doctor's categories, with a specific hint. */
export function sourceOutcome(err: unknown, label: string): Outcome {
  const detail = (err as Error)?.message ?? String(err);
  if (AUTH.test(detail))
    return {
      ok: false,
      category: "auth error",
      detail,
      hint: `check the user and password in the ${label} URL (url_env) and that the role may connect`,
    };
  if (CONFIG.test(detail))
    return {
      ok: false,
      category: "config error",
      detail,
      hint: "check the database name or file path in the source URL",
    };
  return {
    ok: false,
    category: "connectivity error",
    detail,
    hint: `check that ${label} is running and reachable from here (host, port, firewall, TLS settings)`,
  };
}

/**
 * Doctor hook for export files: targets per export plus the source check.
 * @example const { targets, extraChecks } = await exportDoctorPlan(file, { env, cwd, trustedHosts: [] });
 */
export async function exportDoctorPlan(
  file: LoadedConfigFile,
  ctx: { env: Env; cwd: string; trustedHosts: readonly string[] },
): Promise<{ targets: Target[]; extraChecks: Check[] }> {
  const cfg = resolveExportConfig(file.data, {
    env: ctx.env,
    cwd: ctx.cwd,
    trustedHosts: ctx.trustedHosts,
    file: file.path,
  });
  const today = stamp(new Date()).date;
  const targets: Target[] = cfg.exports.map((e) => {
    const prefix = resolvePrefix(e.prefixTemplate, e.name, today);
    const destination: ResolvedDestination =
      e.destination.type === "s3"
        ? { ...e.destination, prefix }
        : {
            ...e.destination,
            path: prefix ? `${e.destination.path}/${prefix}` : e.destination.path,
          };
    return {
      destination,
      label: e.name,
      file: file.path,
      kind: "export",
      ...(e.destination.type === "s3" && e.prefixTemplate.includes("{date}")
        ? { prefixTemplate: e.prefixTemplate }
        : {}),
    };
  });
  const label = sourceLabel(cfg.source.type);
  const check: Check = {
    name: `Source auth (${label})`,
    async run() {
      try {
        await checkSourceAuth(cfg);
        return { ok: true };
      } catch (err) {
        return sourceOutcome(err, label);
      }
    },
  };
  return { targets, extraChecks: [check] };
}
