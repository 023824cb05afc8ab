/** Whether a process of this machine is still there. */

/**
 * True when `pid` exists (EPERM: it exists but belongs to another user). A pid
 * can be reused: callers that must tell a dead owner from a new process compare
 * more than the pid (spool/owner-liveness.ts processIdentity).
 * @example pidRunning(process.pid) // true
 */
export function pidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
