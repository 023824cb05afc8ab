/**
 * Obtains the Chromium the browser tests drive, the way minio-binary.ts obtains
 * MinIO: $CHROMIUM_BIN, else Debian's /usr/bin/chromium, installed with apt-get
 * when missing and this user may install packages. Never a downloaded browser.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";

export const DEBIAN_CHROMIUM = "/usr/bin/chromium";
const INSTALL = "apt-get install -y chromium";

/** What the setup can do about Chromium on this machine. */
export type ChromiumPlan =
  | { kind: "ready"; path: string }
  | { kind: "install"; path: string; sudo: boolean }
  | { kind: "refuse"; message: string };

/** The facts the plan depends on, gathered by `machineFacts()`. */
export interface MachineFacts {
  envPath: string | undefined;
  executable: (path: string) => boolean;
  isRoot: boolean;
  passwordlessSudo: boolean;
  hasAptGet: boolean;
}

/** Decides, without side effects, how the tests get a Chromium. */
export function chromiumPlan(f: MachineFacts): ChromiumPlan {
  if (f.envPath !== undefined) {
    return f.executable(f.envPath)
      ? { kind: "ready", path: f.envPath }
      : {
          kind: "refuse",
          message: `CHROMIUM_BIN=${f.envPath} is not an executable file; unset it or point it at a chromium binary.`,
        };
  }
  if (f.executable(DEBIAN_CHROMIUM)) return { kind: "ready", path: DEBIAN_CHROMIUM };
  if (!f.hasAptGet) {
    return {
      kind: "refuse",
      message:
        `The browser tests need Chromium and ${DEBIAN_CHROMIUM} is missing; this machine has no apt-get. ` +
        "Install Chromium with your package manager and set CHROMIUM_BIN to its path.",
    };
  }
  if (f.isRoot || f.passwordlessSudo)
    return { kind: "install", path: DEBIAN_CHROMIUM, sudo: !f.isRoot };
  return {
    kind: "refuse",
    message:
      `The browser tests need Chromium and ${DEBIAN_CHROMIUM} is missing; this user may not install ` +
      `packages (not root, no passwordless sudo). Run \`sudo ${INSTALL}\` once, or set CHROMIUM_BIN ` +
      "to an existing chromium binary, then run the tests again.",
  };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const succeeds = (cmd: string, args: string[]): boolean =>
  spawnSync(cmd, args, { stdio: "ignore" }).status === 0;

/** Reads the facts of this machine (sudo is asked with -n: it never prompts). */
export function machineFacts(env: NodeJS.ProcessEnv = process.env): MachineFacts {
  const isRoot = process.getuid?.() === 0;
  return {
    envPath: env.CHROMIUM_BIN || undefined,
    executable,
    isRoot,
    passwordlessSudo: !isRoot && succeeds("sudo", ["-n", "true"]),
    hasAptGet: succeeds("apt-get", ["--version"]),
  };
}

/**
 * Returns the path of a runnable Chromium, installing Debian's package first
 * when that is possible; throws a message saying what to do otherwise.
 */
export function findOrInstallChromium(log: (line: string) => void = () => {}): string {
  const plan = chromiumPlan(machineFacts());
  if (plan.kind === "refuse") throw new Error(plan.message);
  if (plan.kind === "ready") return plan.path;
  const pre = plan.sudo ? ["sudo", "-n"] : [];
  log(
    `${DEBIAN_CHROMIUM} is missing: installing Debian's chromium with \`${INSTALL}\` (~350 MB, once)…`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (...args: string[]) => {
    const [cmd, ...rest] = [...pre, "apt-get", "-o", "DPkg::Lock::Timeout=600", ...args];
    const r = spawnSync(cmd!, rest, { env, stdio: ["ignore", "inherit", "inherit"] });
    if (r.status !== 0) {
      throw new Error(
        `\`${[cmd, ...rest].join(" ")}\` failed (${r.error?.message ?? `exit ${r.status}`}); ` +
          `install Chromium yourself with \`${INSTALL}\` or set CHROMIUM_BIN, then run the tests again.`,
      );
    }
  };
  apt("update", "-qq");
  apt("install", "-y", "-qq", "chromium");
  if (!executable(plan.path))
    throw new Error(`\`${INSTALL}\` finished but ${plan.path} is missing; set CHROMIUM_BIN.`);
  return plan.path;
}
