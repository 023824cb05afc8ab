/**
 * Doctor's vocabulary (SPEC §2.5): check results, the fixed failure categories,
 * what to check (targets), and the hook through which other parts (exports'
 * `Source auth (Postgres)`) add their own checks.
 */
import type { ResolvedDestination } from "../config/destination.js";
import type { Env } from "../config/env.js";
import type { LoadedConfigFile } from "../config/load-config.js";

/** The failure categories, spelled exactly as doctor prints them. */
export type DoctorCategory =
  | "auth error"
  | "bucket not found"
  | "wrong region"
  | "connectivity error"
  | "capability missing"
  | "config error";

/** One printed line: `[OK]  <name>` or `[FAIL] <name> -- <category>: <detail>` (+ `Hint:`). */
export interface CheckResult {
  name: string;
  ok: boolean;
  category?: DoctorCategory;
  detail?: string;
  hint?: string;
  /** A passing check with advice (printed `[WARN]`; does not fail the run). */
  warning?: string;
}

/** `{ok, checks}` — also the `--json` output. */
export interface DoctorReport {
  ok: boolean;
  checks: CheckResult[];
}

/** A destination to probe; `label` (e.g. an export name) tells several apart. */
export interface DoctorTarget {
  destination: ResolvedDestination;
  label?: string | undefined;
  /** The config file naming it (for `stowage policy` hints). */
  file?: string;
  /** What writes there: the logger (`<prefix>/v1/...`) or an export (parts, manifest, `_SUCCESS`). */
  kind?: "logs" | "export";
  /** Exports: the prefix with `{date}` still in it (`destination.prefix` has today's date), for `stowage policy` and lifecycle rules. */
  prefixTemplate?: string;
}

/** What an extra check returns: success, or a failure in one of the categories. */
export type CheckOutcome =
  { ok: true } | { ok: false; category: DoctorCategory; detail: string; hint?: string };

/**
 * A check contributed from outside doctor, e.g. `Source auth (Postgres)`.
 * `run` may also throw: the error becomes a failure (StowageError "config" →
 * config error, "credentials" → auth error, anything else → connectivity error).
 */
export interface ExtraCheck {
  name: string;
  run(ctx: { signal: AbortSignal; env: Env }): Promise<CheckOutcome>;
}

/** Everything one doctor run checks, in order: config results, extra checks, then each target. */
export interface DoctorPlan {
  configChecks: CheckResult[];
  targets: DoctorTarget[];
  extraChecks: ExtraCheck[];
}

/**
 * The export side's contribution for an export YAML (`exports:` present):
 * the CLI loads `export/doctor.js` and calls its `exportDoctorPlan` if it exists.
 */
export type ExportDoctorHook = (
  file: LoadedConfigFile,
  ctx: { env: Env; cwd: string; trustedHosts: readonly string[] },
) => Promise<{ targets: DoctorTarget[]; extraChecks: ExtraCheck[] }>;
