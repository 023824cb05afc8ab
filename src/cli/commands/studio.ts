/**
 * `stowage studio [projectDir]` (SPEC §5.4): the web reader on 127.0.0.1 with a
 * session token. The source comes from the project's stowage.config.* (or the
 * embedded default store), or from --source and its flags; `studio.s3.*` in the
 * config sets the grant allowances. Runs until Ctrl+C.
 */
import { existsSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { StowageError } from "../../shared/errors.js";
import type { ResolvedDestination } from "../../config/destination.js";
import type { OpenSourceOptions } from "../../reader/index.js";
import type { CliIo, SetExitCode } from "../io.js";
import { addSourceFlags, sourceOptionsFromFlags, type SourceFlags } from "../source-flags.js";

interface StudioCliOptions extends SourceFlags {
  source?: string;
  port: string;
  host: string;
  open: boolean;
}

/** The reader's view of a resolved destination: `s3://bucket/prefix` + options, or a file URL. */
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

const isLoopback = (host: string) => host === "localhost" || host === "::1" || /^127\./.test(host);

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  const cmd = program
    .command("studio")
    .description(
      "the web reader: browse a project's logs in your browser under a visible per-load budget",
    )
    .argument(
      "[projectDir]",
      "project whose stowage.config.* names the source; its files feed source context (default: the current directory)",
    )
    .option(
      "--source <url>",
      "read s3://bucket/prefix or file:///dir instead of the project's configured destination",
    );
  addSourceFlags(cmd)
    .option("--port <n>", "port to listen on (0: any free port)", "4319")
    .option("--host <host>", "address to bind", "127.0.0.1")
    .option("--no-open", "do not open a browser")
    .action(async (projectDir: string | undefined, opts: StudioCliOptions) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new StowageError(
          "usage",
          `--port must be a port number (0–65535), got "${opts.port}"`,
        );
      const project = projectDir === undefined ? undefined : resolve(io.cwd, projectDir);
      if (project !== undefined && !(existsSync(project) && statSync(project).isDirectory())) {
        throw new StowageError("usage", `the project directory ${projectDir} does not exist`, {
          hint: "pass the directory that holds stowage.config.*, or use --source URL",
        });
      }
      const { loadProjectConfig, findConfigFile } = await import("../../config/index.js");
      const { startStudio } = await import("../../studio/index.js");
      const base = project ?? io.cwd;
      const flags = sourceOptionsFromFlags(opts);
      let url: string;
      let options: OpenSourceOptions;
      let limits: Record<string, number> | undefined;
      let doctorCommand = "stowage doctor";
      const hasConfig = findConfigFile(base).path !== undefined;
      if (opts.source) {
        url = opts.source;
        options = flags;
        doctorCommand = doctorForSource(opts.source, opts); // the same source and flags
      }
      if (!opts.source || (project !== undefined && hasConfig)) {
        const loaded = await loadProjectConfig({
          cwd: base,
          env: io.env,
          trustedHosts: opts.trustEndpoint,
        });
        for (const w of loaded.warnings) io.err(`stowage studio: ${w}\n`);
        limits = { ...loaded.config.studio.s3 };
        if (loaded.file)
          doctorCommand = `stowage doctor --config ${relative(io.cwd, loaded.file) || loaded.file}`;
        if (!opts.source) {
          const fromConfig = destinationSource(loaded.config.destination);
          url = fromConfig.url;
          options = { ...fromConfig.options, ...flags };
          if (!loaded.file)
            io.err(
              `stowage studio: no stowage.config.* in ${base}; reading the embedded default store (run \`stowage demo\` to fill it)\n`,
            );
        }
      }
      // Attach a project only when it is named or configured: never a random working directory.
      const attach = project ?? (opts.source ? undefined : base);
      const studio = await startStudio({
        source: {
          url: url!,
          options: { ...options!, env: io.env, cwd: base, trustedHosts: opts.trustEndpoint },
        },
        ...(attach !== undefined ? { projectDir: attach } : {}),
        port,
        host: opts.host,
        ...(limits ? { limits } : {}),
        open: opts.open && io.isTTY && !io.env.CI,
        doctorCommand,
        onError: (err) => io.err(`stowage studio: ${(err as Error)?.stack ?? String(err)}\n`),
      });
      io.out(
        `Stowage Studio\n  source   ${studio.source}\n  project  ${attach ?? "(none: source context off)"}\n\n  ${studio.url}\n\n`,
      );
      if (!isLoopback(opts.host))
        io.err(
          `stowage studio: listening on ${opts.host}: anyone who can reach it and has the URL (with its token) can read these logs\n`,
        );
      io.err("Nothing is read from storage until you choose Load logs. Press Ctrl+C to stop.\n");
      await new Promise<void>((done) => {
        process.once("SIGINT", done);
        process.once("SIGTERM", done);
      });
      await studio.close();
      io.err("Studio stopped.\n");
      setExit(0);
    });
}

/**
 * `stowage doctor --source URL …`: the command for the page's storage errors. The endpoint,
 * profile and credential names stay on the server (SPEC §5.4), so the flags are not spelled out.
 */
function doctorForSource(source: string, opts: SourceFlags): string {
  const flagged = Boolean(
    opts.region || opts.endpoint || opts.forcePathStyle || opts.profile || opts.accessKeyEnv,
  );
  return `stowage doctor --source ${source}${flagged ? " (plus the flags Studio was started with)" : ""}`;
}
