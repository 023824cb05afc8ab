/**
 * The CLI: the only module family that reads argv, prints, or exits. Each
 * command lives in `commands/<name>.ts` and exports `register(program, io)`;
 * heavy dependencies (AWS SDK, database drivers) are imported lazily inside
 * the command actions so `stowage --help` stays fast.
 */
import { Command, CommanderError } from "commander";
import { createRequire } from "node:module";
import { isStowageError } from "../shared/errors.js";
import { registerCommands } from "./commands/index.js";
import type { CliIo } from "./io.js";
import { defaultIo } from "./io.js";

/** Runs the CLI and returns the exit code (0 ok, 1 failure, 2 usage/config error). */
export async function run(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const version = (createRequire(import.meta.url)("../../package.json") as { version: string })
    .version;
  const program = new Command("stowage")
    .description(
      "Logs and database exports into S3-compatible object storage, read back under a hard budget.",
    )
    .version(version)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  let exitCode = 0;
  registerCommands(program, io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : 2;
    }
    if (isStowageError(err, "config", "usage", "policy")) {
      io.err(`stowage: ${err.message}\n`);
      if (err.hint) io.err(`Hint: ${err.hint}\n`);
      return 2;
    }
    if (isStowageError(err)) {
      io.err(`stowage: ${err.message}\n`);
      if (err.hint) io.err(`Hint: ${err.hint}\n`);
      return 1;
    }
    io.err(`stowage: ${(err as Error)?.stack ?? String(err)}\n`);
    return 1;
  }
}
