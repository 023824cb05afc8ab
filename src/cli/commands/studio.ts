/**
 * `stowage studio [projectDir]` (SPEC §5.4): the web reader on 127.0.0.1 with a
 * session token. The source comes from the project's stowage.config.* (or the
 * embedded default store), or from --source and its flags; `studio.s3.*` in the
 * config sets the grant allowances. Runs until Ctrl+C.
 */
import type { Command } from "commander";
import { StowageError } from "../../shared/errors.js";
import type { CliIo, SetExitCode } from "../io.js";
import { addSourceFlags, sourceOptionsFromFlags, type SourceFlags } from "../source-flags.js";

interface StudioCliOptions extends SourceFlags {
  source?: string;
  port: string;
  host: string;
  open: boolean;
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
      const { startProjectStudio } = await import("../../studio/project-studio.js");
      const { studio, projectDir: attached } = await startProjectStudio({
        projectDir,
        source: opts.source,
        sourceOptions: sourceOptionsFromFlags(opts),
        cwd: io.cwd,
        env: io.env,
        trustedHosts: opts.trustEndpoint,
        port,
        host: opts.host,
        open: opts.open && io.isTTY && !io.env.CI,
        onError: (err) => io.err(`stowage studio: ${(err as Error)?.stack ?? String(err)}\n`),
        onNote: (text) => io.err(`stowage studio: ${text}\n`),
      });
      io.out(
        `Stowage Studio\n  source   ${studio.source}\n  project  ${attached ?? "(none: source context off)"}\n\n  ${studio.url}\n\n`,
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
