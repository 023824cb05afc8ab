/**
 * What doctor (and `stowage policy`) should look at: the config files given
 * (or the discovered `stowage.config.*`, or the embedded default), each parsed
 * into a config check plus the destinations it names. A logger config names
 * one destination; an export file (`exports:`) one per export.
 */
import { existsSync, statSync } from "node:fs";
import { relative } from "node:path";
import { finishLocalDestination, parseDestination } from "../config/destination.js";
import type { Env } from "../config/env.js";
import { findConfigFile, loadConfigFile, type LoadedConfigFile } from "../config/load-config.js";
import {
  DEFAULT_LOCAL_PATH,
  resolveLoggerConfig,
  type ResolvedLoggerConfig,
} from "../config/logger-config.js";
import { compileRedaction } from "../record/redact.js";
import { checkSpoolPath } from "../spool/spool-file-check.js";
import { openSpoolDatabase } from "../spool/sqlite-schema.js";
import { isStowageError } from "../shared/errors.js";
import { connectorChecks } from "./connector-checks.js";
import type { CheckResult, DoctorPlan, DoctorTarget, ExportDoctorHook } from "./types.js";

export interface PlanOptions {
  cwd: string;
  env: Env;
  /** `--trust-endpoint` hosts. */
  trustedHosts: readonly string[];
  /** The export side's planner, when present (adds `Source auth (...)` checks). */
  exportHook?: ExportDoctorHook;
}

export interface LoadedPlan extends DoctorPlan {
  /** Notes for stderr (e.g. several config files present). */
  warnings: string[];
}

const isExportFile = (data: unknown) =>
  data !== null && typeof data === "object" && "exports" in data;

/** Built-in reading of an export file's destinations (`exports[i].destination`), placeholders filled. */
function exportTargets(file: LoadedConfigFile, options: PlanOptions): DoctorTarget[] {
  const exportsList = (file.data as { exports?: unknown }).exports;
  if (!Array.isArray(exportsList)) return [];
  const today = new Date().toISOString().slice(0, 10);
  return exportsList.flatMap((exp: unknown, i): DoctorTarget[] => {
    const e = (exp ?? {}) as { name?: unknown; destination?: unknown };
    if (e.destination === undefined) return [];
    const name = typeof e.name === "string" ? e.name : `#${i}`;
    const raw = e.destination as Record<string, unknown>;
    const filled =
      typeof raw?.prefix === "string"
        ? { ...raw, prefix: raw.prefix.replaceAll("{export}", name).replaceAll("{date}", today) }
        : raw;
    const destination = parseDestination(filled, `exports[${i}].destination`, {
      env: options.env,
      cwd: options.cwd,
      trustedHosts: options.trustedHosts,
      origin: file.origin,
      file: file.path,
    });
    const template =
      typeof raw?.prefix === "string" ? raw.prefix.replaceAll("{export}", name) : undefined;
    return [
      {
        destination,
        label: name,
        file: file.path,
        kind: "export",
        ...(template?.includes("{date}") ? { prefixTemplate: template } : {}),
      },
    ];
  });
}

/**
 * What `createLogger` checks beyond the schema: the redaction
 * compiles (patterns are valid regexes, paths are well formed) and a spool path
 * names a spool file or nothing yet. Read-only: doctor creates no spool.
 */
function validateLikeCreateLogger(config: ResolvedLoggerConfig): void {
  compileRedaction({
    keys: config.redact.keys,
    paths: config.redact.paths,
    patterns: config.redact.patterns,
    disableDefaults: config.redact.disableDefaults,
  });
  const d = config.delivery;
  if (d.buffer !== "sqlite") return;
  checkSpoolPath(d.spoolPath);
  if (existsSync(d.spoolPath) && statSync(d.spoolPath).size > 0)
    openSpoolDatabase(d.spoolPath, { create: false, readonly: true }).db.close();
}

function configFailure(name: string, err: unknown): CheckResult {
  const message = err instanceof Error ? err.message : String(err);
  const hint = isStowageError(err) ? err.hint : undefined;
  return { name, ok: false, category: "config error", detail: message, ...(hint ? { hint } : {}) };
}

/**
 * Loads every config file into checks and targets; never throws for a bad file
 * (that is a failed `Config (...)` check).
 * @example const plan = await loadDoctorPlan(["export.yaml"], { cwd, env, trustedHosts: [] });
 */
export async function loadDoctorPlan(
  files: readonly string[],
  options: PlanOptions,
): Promise<LoadedPlan> {
  const plan: LoadedPlan = { configChecks: [], targets: [], extraChecks: [], warnings: [] };
  let list = [...files];
  if (list.length === 0) {
    const found = findConfigFile(options.cwd);
    if (found.warning) plan.warnings.push(found.warning);
    if (!found.path) {
      plan.configChecks.push({
        name: `Config (no stowage.config.* found: embedded default, local store at ${DEFAULT_LOCAL_PATH})`,
        ok: true,
      });
      plan.targets.push({
        destination: finishLocalDestination(DEFAULT_LOCAL_PATH, options.cwd),
        kind: "logs",
      });
      return plan;
    }
    list = [found.path];
  }
  for (const path of list) {
    const name = `Config (${relative(options.cwd, path) || path})`;
    try {
      const file = await loadConfigFile(path, { env: options.env, cwd: options.cwd });
      if (isExportFile(file.data)) {
        if (options.exportHook) {
          const contribution = await options.exportHook(file, {
            env: options.env,
            cwd: options.cwd,
            trustedHosts: options.trustedHosts,
          });
          plan.targets.push(...contribution.targets);
          plan.extraChecks.push(...contribution.extraChecks);
        } else {
          plan.targets.push(...exportTargets(file, options));
        }
      } else {
        const config = resolveLoggerConfig(file.data, {
          env: options.env,
          cwd: options.cwd,
          origin: file.origin,
          file: file.path,
          trustedHosts: options.trustedHosts,
        });
        validateLikeCreateLogger(config);
        plan.targets.push({ destination: config.destination, file: file.path, kind: "logs" });
        plan.extraChecks.push(...connectorChecks(config.connectors));
      }
      plan.configChecks.push({ name, ok: true });
    } catch (err) {
      plan.configChecks.push(configFailure(name, err));
    }
  }
  return plan;
}
