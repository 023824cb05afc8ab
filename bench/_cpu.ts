/**
 * CPU accounting shared by the benchmarks (not a benchmark itself: bench/run.ts skips `_`
 * files). Wall-time ratios move with the machine's phase; CPU per unit of work moves much
 * less, so every benchmark prints both, for the subject and each reference, and checks its
 * targets on CPU where the wall-time figure depends on the phase.
 */
import { readdirSync, readFileSync } from "node:fs";

/**
 * The main thread's CPU time in ns (Linux `schedstat`), or null where it cannot be read.
 * `fsModule` is a parameter so this function's source can also run in a child process
 * built from a string (bench/log.ts), outside the TypeScript loader.
 */
export function mainThreadCpuNs(fsModule: { readFileSync: typeof readFileSync }): number | null {
  try {
    const stat = fsModule.readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8");
    return Number(stat.split(" ")[0]);
  } catch {
    return null;
  }
}

/** CPU time of another process (every thread, user + system) in seconds, or null. */
export function processCpuS(pid: number): number | null {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, clock ticks (100 Hz)
  } catch {
    return null;
  }
}

export interface CpuMark {
  all: NodeJS.CpuUsage;
  main: number | null;
}

export interface CpuSpent {
  /** Every thread of this process (µs). */
  allUs: number;
  /** The main thread only (µs), null where schedstat is missing. */
  mainUs: number | null;
}

export const cpuMark = (): CpuMark => ({
  all: process.cpuUsage(),
  main: mainThreadCpuNs({ readFileSync }),
});

export function cpuSince(mark: CpuMark): CpuSpent {
  const all = process.cpuUsage(mark.all);
  const main = mainThreadCpuNs({ readFileSync });
  return {
    allUs: all.user + all.system,
    mainUs: main === null || mark.main === null ? null : (main - mark.main) / 1000,
  };
}

/** Runs `fn` and returns its value with the CPU it spent. */
export async function withCpu<T>(fn: () => Promise<T>): Promise<{ value: T; cpu: CpuSpent }> {
  const m = cpuMark();
  const value = await fn();
  return { value, cpu: cpuSince(m) };
}

/**
 * One target line: `name  value (goal ≥ x): met | NOT met`. `higherIsBetter` false for a
 * ceiling (CPU ratios, memory).
 */
export function targetLine(
  name: string,
  value: number,
  goal: number,
  higherIsBetter = true,
  unit = "×",
): string {
  const ok = higherIsBetter ? value >= goal : value <= goal;
  const fmt = (v: number) => (unit === "×" ? v.toFixed(2) : v.toFixed(0));
  return `${name}: ${fmt(value)}${unit} (goal ${higherIsBetter ? "≥" : "≤"} ${fmt(goal)}${unit}): ${ok ? "met" : "NOT met"}`;
}

/** Fields of /proc/<pid>/stat after the command name (utime is [11]), or null. */
function statFields(pid: number | "self"): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return null;
  }
}

/**
 * CPU seconds of this process's children that have ended and been waited for
 * (`cutime + cstime`): read before and after a `spawnSync`, or around an awaited child,
 * it is that child's CPU.
 */
export function endedChildrenCpuS(): number {
  const f = statFields("self");
  return f ? (Number(f[13]) + Number(f[14])) / 100 : 0;
}

/**
 * CPU seconds of every process named one of `names` (e.g. `postgres`, `mariadbd`),
 * including their ended children (`cutime + cstime`: a server's per-connection
 * processes, once they exit). Read before and after a run: the server's CPU for it.
 */
export function serverCpuS(names: readonly string[]): number {
  let s = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    } catch {
      continue;
    }
    if (!names.includes(comm)) continue;
    const f = statFields(Number(pid));
    if (f) s += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  }
  return s;
}
