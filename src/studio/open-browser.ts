/**
 * Opens a URL in the user's browser (best effort, detached, never awaited for
 * the browser's lifetime). Failures are reported, not thrown: the URL is printed anyway.
 */
import { spawn } from "node:child_process";

/** The platform's opener command for a URL. */
function opener(url: string): [string, string[]] {
  if (process.platform === "darwin") return ["open", [url]];
  if (process.platform === "win32") return ["cmd", ["/c", "start", "", url]];
  return ["xdg-open", [url]];
}

/**
 * @example await openBrowser("http://127.0.0.1:4319/?token=…") // true when an opener started
 */
export function openBrowser(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const [cmd, args] = opener(url);
    try {
      const child = spawn(cmd, args, { stdio: "ignore", detached: true });
      child.once("error", () => resolve(false));
      child.once("spawn", () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
