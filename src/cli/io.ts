/** The CLI's window on the terminal: output streams, TTY-ness, the environment. */

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function defaultIo(): CliIo {
  return {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
    isTTY: Boolean(process.stdout.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Sets the process exit code for a command (the CLI runner returns it). */
export type SetExitCode = (code: number) => void;
