/** `stowage spool` — not yet available in this build. */
import type { Command } from "commander";
import type { CliIo, SetExitCode } from "../io.js";

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  program
    .command("spool")
    .description("(spool: not yet available)")
    .allowUnknownOption()
    .action(() => {
      io.err("stowage spool: not yet available in this build.\n");
      setExit(1);
    });
}
