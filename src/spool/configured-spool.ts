/**
 * The spool `stowage spool status|retry` means: the file given, else the spool of
 * the destination in the logger config (`s3.delivery.spoolPath`, or its default
 * `~/.stowage/s3/<target-hash>.db`). A missing spool found through the config says
 * where its path came from. Never creates a spool file.
 */
import { resolve } from "node:path";
import { findConfigFile, loadConfigFile, resolveLoggerConfig } from "../config/index.js";
import type { Env } from "../config/env.js";
import { isStowageError, StowageError } from "../shared/errors.js";
import type { SpoolStatus } from "./spool.js";
import { getS3SpoolStatus, retryS3Spool, type SpoolOwnerStatus } from "./sqlite-status.js";

export interface SpoolLookup {
  /** The spool file (`--path`); relative to `cwd`. */
  path?: string | undefined;
  /** The logger config to take the destination from; default: `stowage.config.*` in `cwd`. */
  config?: string | undefined;
  cwd: string;
  env: Env;
  trustedHosts: readonly string[];
}

/** The spool file, and what named it: `--path`, a config file, or the default destination. */
export interface SpoolLocation {
  path: string;
  from: string;
}

/** The spool file named by `path`, else the one the logger config would use. */
async function locateSpool(o: SpoolLookup): Promise<SpoolLocation> {
  if (o.path) return { path: resolve(o.cwd, o.path), from: "--path" };
  const file = o.config ? resolve(o.cwd, o.config) : findConfigFile(o.cwd).path;
  const loaded = file ? await loadConfigFile(file, { env: o.env, cwd: o.cwd }) : undefined;
  const resolved = resolveLoggerConfig(loaded?.data ?? {}, {
    env: o.env,
    cwd: o.cwd,
    origin: loaded?.origin ?? "code",
    trustedHosts: o.trustedHosts,
    ...(loaded ? { file: loaded.path } : {}),
  });
  return {
    path: resolved.delivery.spoolPath,
    from: loaded ? loaded.path : "the default destination (no stowage.config.* here)",
  };
}

/** Runs `act` on the located spool, naming where a missing spool's path came from. */
async function atSpool<T>(
  o: SpoolLookup,
  act: (path: string) => Promise<T>,
): Promise<SpoolLocation & T> {
  const at = await locateSpool(o);
  try {
    return { ...at, ...(await act(at.path)) };
  } catch (err) {
    if (!isStowageError(err, "not-found") || at.from === "--path") throw err;
    throw new StowageError(
      "not-found",
      `${err.message} (the spool of ${at.from}): nothing has been spooled there yet`,
      {
        hint: 'Pass --path with the spool file, or --config with the logger config that uses `buffer: "sqlite"`.',
      },
    );
  }
}

/**
 * `stowage spool status`: where the spool is and what it holds.
 * @example const { path, status } = await inspectSpool({ cwd, env, trustedHosts: [] });
 */
export async function inspectSpool(
  o: SpoolLookup,
): Promise<SpoolLocation & { status: SpoolStatus & { owners: SpoolOwnerStatus[] } }> {
  return atSpool(o, async (path) => ({ status: await getS3SpoolStatus(path) }));
}

/**
 * `stowage spool retry`: re-arms the located spool's failed batches.
 * @example const { path, rearmed } = await rearmSpool({ path: "spool.db", cwd, env, trustedHosts: [] });
 */
export async function rearmSpool(o: SpoolLookup): Promise<SpoolLocation & { rearmed: number }> {
  return atSpool(o, (path) => retryS3Spool(path));
}
