/**
 * Studio on a project (`stowage studio [projectDir]`, `stowage demo`): which source
 * to read — `--source` with its flags, else the destination in the project's
 * stowage.config.* (or the embedded default store) — the `studio.s3` allowances,
 * the doctor command the page suggests, and which project feeds source context:
 * only one named or configured, never a random working directory.
 */
import { existsSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { findConfigFile, loadProjectConfig } from "../config/index.js";
import type { ResolvedDestination } from "../config/destination.js";
import type { Env } from "../config/env.js";
import type { OpenSourceOptions } from "../reader/index.js";
import { StowageError } from "../shared/errors.js";
import {
  DEFAULT_STUDIO_PORT,
  startStudio,
  type StudioHandle,
  type StudioOptions,
} from "./index.js";

/**
 * The reader's view of a resolved destination: `s3://bucket/prefix` + options, or a file URL.
 * @example destinationSource(config.destination).url // "s3://logs/app"
 */
export function destinationSource(dest: ResolvedDestination): {
  url: string;
  options: OpenSourceOptions;
} {
  if (dest.type === "local") return { url: pathToFileURL(dest.path).href, options: {} };
  const c = dest.credentials;
  const creds: OpenSourceOptions =
    c.source === "explicit"
      ? { credentials: c.credentials }
      : c.source === "env"
        ? {
            accessKeyEnv: c.accessKeyEnv,
            secretKeyEnv: c.secretKeyEnv,
            ...(c.sessionTokenEnv ? { sessionTokenEnv: c.sessionTokenEnv } : {}),
          }
        : c.source === "profile"
          ? { profile: c.profile }
          : c.source === "anonymous"
            ? { allowAnonymous: true }
            : {};
  return {
    url: `s3://${dest.bucket}${dest.prefix ? `/${dest.prefix}` : ""}`,
    options: {
      ...(dest.region ? { region: dest.region } : {}),
      ...(dest.endpoint ? { endpoint: dest.endpoint } : {}),
      forcePathStyle: dest.forcePathStyle,
      ...(dest.trustEndpoint ? { trustEndpoint: true } : {}),
      // Objects read without the lock the config asks for are marked unverified.
      ...(dest.objectLock ? { objectLock: dest.objectLock } : {}),
      ...creds,
    },
  };
}

/**
 * `stowage doctor --source URL …`: the command for the page's storage errors. The endpoint,
 * profile and credential names stay on the server (SPEC §5.4), so the flags are not spelled out.
 */
function doctorForSource(source: string, flags: OpenSourceOptions): string {
  const flagged = Boolean(
    flags.region || flags.endpoint || flags.forcePathStyle || flags.profile || flags.accessKeyEnv,
  );
  return `stowage doctor --source ${source}${flagged ? " (plus the flags Studio was started with)" : ""}`;
}

export interface ProjectStudioOptions {
  /** The project directory as given (relative to `cwd`); default: `cwd`, attached only when configured. */
  projectDir?: string | undefined;
  /** Read this `s3://bucket/prefix` or `file:///dir` instead of the configured destination. */
  source?: string | undefined;
  /** Reader options from the command line; they win over the config's. */
  sourceOptions: OpenSourceOptions;
  cwd: string;
  env: Env;
  trustedHosts: string[];
  port: number;
  host: string;
  open: boolean;
  onError?: (err: unknown) => void;
  /** What the user should know before Studio starts: config warnings, the default store. */
  onNote?: (text: string) => void;
}

/**
 * Starts Studio on a project's source; `projectDir` is the project attached, if any.
 * @example const { studio } = await startProjectStudio({ cwd, env, trustedHosts: [], sourceOptions: {}, port: 0, host: "127.0.0.1", open: false });
 */
export async function startProjectStudio(
  o: ProjectStudioOptions,
): Promise<{ studio: StudioHandle; projectDir: string | undefined }> {
  const { source, sourceOptions: flags, cwd, env, trustedHosts, onNote = () => {} } = o;
  const project = o.projectDir === undefined ? undefined : resolve(cwd, o.projectDir);
  if (project !== undefined && !(existsSync(project) && statSync(project).isDirectory())) {
    throw new StowageError("usage", `the project directory ${o.projectDir} does not exist`, {
      hint: "pass the directory that holds stowage.config.*, or use --source URL",
    });
  }
  const base = project ?? cwd;
  let url: string | undefined = source;
  let options: OpenSourceOptions = flags;
  let limits: Record<string, number> | undefined;
  let doctorCommand = source ? doctorForSource(source, flags) : "stowage doctor";
  const hasConfig = findConfigFile(base).path !== undefined;
  if (!source || (project !== undefined && hasConfig)) {
    const loaded = await loadProjectConfig({ cwd: base, env, trustedHosts });
    for (const w of loaded.warnings) onNote(w);
    limits = { ...loaded.config.studio.s3 };
    if (loaded.file)
      doctorCommand = `stowage doctor --config ${relative(cwd, loaded.file) || loaded.file}`;
    if (!source) {
      const fromConfig = destinationSource(loaded.config.destination);
      url = fromConfig.url;
      options = { ...fromConfig.options, ...flags };
      if (!loaded.file)
        onNote(
          `no stowage.config.* in ${base}; reading the embedded default store (run \`stowage demo\` to fill it)`,
        );
    }
  }
  const attach = project ?? (source ? undefined : base);
  const studio = await startStudio({
    source: { url: url!, options: { ...options, env, cwd: base, trustedHosts } },
    ...(attach !== undefined ? { projectDir: attach } : {}),
    port: o.port,
    host: o.host,
    ...(limits ? { limits } : {}),
    open: o.open,
    doctorCommand,
    ...(o.onError ? { onError: o.onError } : {}),
  });
  return { studio, projectDir: attach };
}

/**
 * Starts Studio on `DEFAULT_STUDIO_PORT`, or on any free port when that one is taken
 * (another Studio, another program); a port asked for is never replaced.
 * @example const studio = await startStudioAnyPort({ source: { url: "file:///tmp/store" } });
 */
export async function startStudioAnyPort(options: StudioOptions): Promise<StudioHandle> {
  if (options.port !== undefined) return startStudio(options);
  try {
    return await startStudio({ ...options, port: DEFAULT_STUDIO_PORT });
  } catch {
    return startStudio({ ...options, port: 0 });
  }
}
