/**
 * Who holds a Studio port: a small file per port in the OS temp directory
 * (`stowage-studio-<port>.json`: pid, source fingerprint, URL without token),
 * so a second `stowage studio` on a busy port can say "a Studio for this
 * source is already running there" instead of a bare EADDRINUSE.
 * It never holds the token: the URL hint points at the page, the token stays
 * with the terminal that printed it.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pidRunning } from "../shared/pid.js";

export interface PortHolder {
  pid: number;
  sourceId: string;
  url: string;
}

/** A short fingerprint of a source description (no need to store the description itself). */
export function sourceFingerprint(description: string): string {
  return createHash("sha256").update(description).digest("hex").slice(0, 16);
}

function lockPath(port: number): string {
  return join(tmpdir(), `stowage-studio-${port}.json`);
}

/** The Studio recorded for `port`, if its process is still alive. */
export function readPortHolder(port: number): PortHolder | null {
  try {
    const holder = JSON.parse(readFileSync(lockPath(port), "utf8")) as PortHolder;
    return typeof holder.pid === "number" && pidRunning(holder.pid) ? holder : null;
  } catch {
    return null;
  }
}

/** Records this process as the holder of `port`; returns the release function. */
export function writePortHolder(port: number, holder: PortHolder): () => void {
  const path = lockPath(port);
  try {
    writeFileSync(path, JSON.stringify(holder), { mode: 0o600 });
  } catch {
    return () => {};
  }
  return () => {
    try {
      const now = JSON.parse(readFileSync(path, "utf8")) as PortHolder;
      if (now.pid === holder.pid && now.url === holder.url) rmSync(path, { force: true });
    } catch {
      /* already gone */
    }
  };
}
