/**
 * Console echo (SPEC §3.2): `pretty` or `json` lines of the already-redacted
 * record on a stream. Writes are fire-and-forget; a slow or broken terminal
 * never slows or blocks delivery (a backed-up stream drops echo lines, counted).
 */
import type { Level } from "../record/levels.js";
import { escapeTerminal } from "../record/terminal-safe.js";

const COLORS: Record<Level, string> = {
  trace: "\x1b[90m",
  debug: "\x1b[36m",
  info: "\x1b[32m",
  success: "\x1b[92m",
  warning: "\x1b[33m",
  error: "\x1b[31m",
  critical: "\x1b[35m",
};

export interface EchoStream {
  write(chunk: string): boolean;
  writableLength?: number;
}

export class ConsoleEcho {
  /** Lines not echoed because the stream was backed up. */
  dropped = 0;
  private closed = false;

  constructor(
    private readonly mode: "pretty" | "json",
    private readonly stream: EchoStream,
    private readonly color: boolean,
    private readonly maxBufferedBytes = 1 << 20,
  ) {}

  echo(line: string, level: Level): void {
    if (this.closed) return;
    if ((this.stream.writableLength ?? 0) > this.maxBufferedBytes) {
      this.dropped++;
      return;
    }
    try {
      this.stream.write(this.mode === "json" ? line + "\n" : this.pretty(line, level));
    } catch {
      this.dropped++;
    }
  }

  close(): void {
    this.closed = true;
  }

  private pretty(line: string, level: Level): string {
    const r = JSON.parse(line) as Record<string, unknown>;
    const time = String(r.timestamp ?? "").slice(11, 23);
    const lvl = level.toUpperCase().padEnd(8);
    const extra: string[] = [];
    if (r.data !== undefined) extra.push(JSON.stringify(r.data));
    if (r.bindings !== undefined) extra.push(JSON.stringify(r.bindings));
    const err = r.error as { stack?: string; name?: string; message?: string } | undefined;
    const tail = err ? `\n${err.stack ?? `${err.name}: ${err.message}`}` : "";
    const head = this.color ? `${COLORS[level]}${lvl}\x1b[0m` : lvl;
    const body = `${String(r.message ?? "")}${extra.length ? " " + extra.join(" ") : ""}`;
    return `${escapeTerminal(time)} ${head} ${escapeTerminal(body)}${escapeTerminal(tail, { keepNewlines: true })}\n`;
  }
}
