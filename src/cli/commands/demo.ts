/** `stowage demo` — not yet available in this build. */
import type { Command } from "commander";
import type { CliIo, SetExitCode } from "../io.js";

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  program
    .command("demo")
    .description("(demo: not yet available)")
    .allowUnknownOption()
    .action(() => {
      io.err("stowage demo: not yet available in this build.\n");
      setExit(1);
    });
}
