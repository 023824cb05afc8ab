/** Registers every CLI command. One file per command; each exports `register`. */
import type { Command } from "commander";
import type { CliIo, SetExitCode } from "../io.js";
import * as compact from "./compact.js";
import * as demo from "./demo.js";
import * as doctor from "./doctor.js";
import * as policy from "./policy.js";
import * as studio from "./studio.js";
import * as logs from "./logs.js";
import * as spool from "./spool.js";
import * as runCmd from "./run.js";
import * as validate from "./validate.js";
import * as verify from "./verify.js";

export function registerCommands(program: Command, io: CliIo, setExit: SetExitCode): void {
  for (const cmd of [
    demo,
    doctor,
    policy,
    studio,
    logs,
    spool,
    runCmd,
    validate,
    verify,
    compact,
  ]) {
    cmd.register(program, io, setExit);
  }
}
