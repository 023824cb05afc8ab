/**
 * Studio's entry point: `startStudio` opens (or takes) a reader source, fixes
 * the project directory, binds the local server with a fresh session token and
 * returns the URL to open. Opening makes no storage request (SPEC §5.2).
 */
import { realpath } from "node:fs/promises";
import { createRequire } from "node:module";
import { randomHex } from "../shared/ids.js";
import { StowageError } from "../shared/errors.js";
import type { GrantLimits, Source } from "../reader/types.js";
import { openSource, resolveLimits, type OpenSourceOptions } from "../reader/index.js";
import { defaultAssetsDir } from "./static-assets.js";
import { createStudioServer } from "./server.js";
import { openBrowser } from "./open-browser.js";
import { readPortHolder, sourceFingerprint, writePortHolder } from "./port-lock.js";

export type { InfoResponse, LoadResponse, SourceContextResponse, ApiError } from "./api-types.js";
export { readSourceContext } from "./source-context.js";

/** Default port of `stowage studio`. */
export const DEFAULT_STUDIO_PORT = 4319;

/** A source to open: `s3://bucket/prefix` or `file:///dir` with `openSource` options (§5.1). */
export interface StudioSourceSpec {
  url: string;
  options?: OpenSourceOptions;
}

export interface StudioOptions {
  /** An open reader source, or a URL (`s3://bucket/prefix`, `file:///dir`) and its options. */
  source: Source | StudioSourceSpec;
  /** The project whose files source context may show; fixed for the server's lifetime. */
  projectDir?: string;
  /** Default 4319; 0 picks a free port. A port held by anything else is refused. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  limits?: Partial<GrantLimits>;
  /** Open the browser on the URL (best effort). Default false. */
  open?: boolean;
  /** The command the UI suggests for storage errors. Default `stowage doctor`. */
  doctorCommand?: string;
  /** Where the built UI lives. Default `<package>/dist/studio/web`. */
  assetsDir?: string;
  /** Called with unexpected server errors. */
  onError?: (err: unknown) => void;
}

export interface StudioHandle {
  /** `http://127.0.0.1:<port>/?token=<32 hex>` */
  url: string;
  /** The source as shown: `s3://bucket/prefix` or `file:///dir` (never credentials). */
  source: string;
  port: number;
  token: string;
  /** True when a browser was opened. */
  opened: boolean;
  close(): Promise<void>;
}

function isSource(s: Source | StudioSourceSpec): s is Source {
  return typeof (s as Source).query === "function";
}

function secretsOf(spec: StudioSourceSpec): string[] {
  const creds = spec.options?.credentials;
  if (!creds || typeof creds !== "object") return [];
  return [creds.accessKeyId, creds.secretAccessKey, creds.sessionToken].filter(
    (v): v is string => typeof v === "string",
  );
}

/**
 * Starts Studio and resolves once it listens.
 * @example
 * const studio = await startStudio({ source: { url: "file:///app/.stowage/store" }, projectDir: "/app", port: 0 });
 * console.log(studio.url); // http://127.0.0.1:43117/?token=…
 * await studio.close();
 */
export async function startStudio(options: StudioOptions): Promise<StudioHandle> {
  const host = options.host ?? "127.0.0.1";
  const wantedPort = options.port ?? DEFAULT_STUDIO_PORT;
  const limits = resolveLimits(options.limits);
  let source: Source;
  let ownsSource = false;
  let secrets: string[] = [];
  if (isSource(options.source)) {
    source = options.source;
  } else {
    source = openSource(options.source.url, options.source.options);
    ownsSource = true;
    secrets = secretsOf(options.source);
  }
  let projectDir: string | undefined;
  if (options.projectDir !== undefined) {
    try {
      projectDir = await realpath(options.projectDir);
    } catch {
      if (ownsSource) source.close();
      throw new StowageError(
        "usage",
        `the project directory ${options.projectDir} does not exist`,
        { hint: "pass an existing directory, or omit it" },
      );
    }
  }
  const token = randomHex(32);
  const version = (createRequire(import.meta.url)("../../package.json") as { version: string })
    .version;
  const server = createStudioServer({
    source,
    projectDir,
    token,
    host,
    version,
    secrets,
    limits,
    assetsDir: options.assetsDir ?? defaultAssetsDir(),
    doctorCommand: options.doctorCommand ?? "stowage doctor",
    ...(options.onError ? { onError: options.onError } : {}),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(wantedPort, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    if (ownsSource) source.close();
    throw portError(err, host, wantedPort, source.description);
  }
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : wantedPort;
  const urlHost = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
  const base = `http://${urlHost}:${port}/`;
  const release = writePortHolder(port, {
    pid: process.pid,
    sourceId: sourceFingerprint(source.description),
    url: base,
  });
  const url = `${base}?token=${token}`;
  const opened = options.open ? await openBrowser(url) : false;
  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    token,
    opened,
    source: source.description,
    close() {
      closing ??= new Promise<void>((resolve) => {
        release();
        server.close(() => resolve());
        server.closeAllConnections();
        if (ownsSource) source.close();
      });
      return closing;
    },
  };
}

function portError(err: unknown, host: string, port: number, description: string): StowageError {
  const e = err as NodeJS.ErrnoException;
  if (e.code === "EADDRINUSE") {
    const holder = readPortHolder(port);
    if (holder && holder.sourceId === sourceFingerprint(description)) {
      return new StowageError(
        "usage",
        `a Studio for ${description} is already running at ${holder.url}`,
        {
          hint: `open the URL (with its ?token=…) printed by that Studio, stop it (pid ${holder.pid}), or choose another port with --port`,
        },
      );
    }
    const who = holder
      ? `a Studio for another source (pid ${holder.pid}, ${holder.url})`
      : "another program";
    return new StowageError("usage", `port ${port} on ${host} is already in use by ${who}`, {
      hint: "choose another port with --port N (or --port 0 for any free port)",
    });
  }
  if (e.code === "EACCES") {
    return new StowageError("usage", `not allowed to listen on ${host}:${port}`, {
      hint: "choose a port above 1024 with --port",
    });
  }
  if (e.code === "EADDRNOTAVAIL") {
    return new StowageError("usage", `cannot listen on ${host}: no such local address`, {
      hint: "use --host 127.0.0.1 (the default)",
    });
  }
  return new StowageError("internal", `Studio could not start its server: ${e.message}`, {
    cause: err,
  });
}
