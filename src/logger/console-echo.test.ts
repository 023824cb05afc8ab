/**
 * Console echo and caller capture in-process (SPEC §3.2): what a terminal
 * shows for each mode, escaping, a backed-up or broken stream, and `caller: true`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConsoleEcho, type EchoStream } from "./console-echo.js";
import { captureCaller } from "./caller.js";
import { createLogger } from "./create-logger.js";
import { LocalStore } from "../store/local-store.js";
import { readBack } from "../../test/support/read-back.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function sink(writableLength = 0): EchoStream & { chunks: string[] } {
  const chunks: string[] = [];
  return { chunks, writableLength, write: (c) => (chunks.push(c), true) };
}

const line = JSON.stringify({
  timestamp: "2026-03-04T05:06:07.891Z",
  message: "order placed",
  data: { id: 7 },
  bindings: { svc: "api" },
});

describe("§3.2 ConsoleEcho", () => {
  it("pretty mode prints time, padded level, message, data and bindings; color wraps the level", () => {
    const plain = sink();
    new ConsoleEcho("pretty", plain, false).echo(line, "info");
    expect(plain.chunks).toEqual(['05:06:07.891 INFO     order placed {"id":7} {"svc":"api"}\n']);
    const colored = sink();
    new ConsoleEcho("pretty", colored, true).echo(line, "error");
    expect(colored.chunks[0]).toBe(
      '05:06:07.891 \x1b[31mERROR   \x1b[0m order placed {"id":7} {"svc":"api"}\n',
    );
  });

  it("json mode echoes the record line as is", () => {
    const s = sink();
    new ConsoleEcho("json", s, true).echo(line, "warning");
    expect(s.chunks).toEqual([line + "\n"]);
  });

  it("an error's stack follows on its own lines; terminal control characters are escaped", () => {
    const s = sink();
    const rec = JSON.stringify({
      timestamp: "2026-03-04T05:06:07.891Z",
      message: "boom \x1b[2J",
      error: { name: "TypeError", message: "bad" },
    });
    new ConsoleEcho("pretty", s, false).echo(rec, "critical");
    expect(s.chunks[0]).toContain("CRITICAL");
    expect(s.chunks[0]).toContain("\nTypeError: bad\n");
    expect(s.chunks[0]).not.toContain("\x1b[2J");
  });

  it("a backed-up stream or a throwing one drops lines (counted); after close nothing is written", () => {
    const full = sink(2 << 20);
    const e1 = new ConsoleEcho("json", full, false);
    e1.echo(line, "info");
    e1.echo(line, "info");
    expect(full.chunks).toEqual([]);
    expect(e1.dropped).toBe(2);
    const e2 = new ConsoleEcho(
      "json",
      {
        write: () => {
          throw new Error("EPIPE");
        },
      },
      false,
    );
    e2.echo(line, "info");
    expect(e2.dropped).toBe(1);
    const s = sink();
    const e3 = new ConsoleEcho("json", s, false);
    e3.close();
    e3.echo(line, "info");
    expect(s.chunks).toEqual([]);
    expect(e3.dropped).toBe(0);
  });
});

describe("§3.2 caller capture", () => {
  it("captureCaller returns this test file and line relative to the root", () => {
    const at = captureCaller(process.cwd(), 0);
    expect(at).toMatch(/^src\/logger\/console-echo\.test\.ts:\d+$/);
  });

  it("a logger with caller: true stores the logging call's file:line in each record", async () => {
    const root = mkdtempSync(join(tmpdir(), "stowage-caller-"));
    dirs.push(root);
    const log = createLogger({
      console: false,
      caller: true,
      destination: "local",
      local: { path: root },
    } as Parameters<typeof createLogger>[0]);
    log.info("where am I");
    const res = await log.close();
    expect(res.ok).toBe(true);
    const records = (await readBack(new LocalStore({ root }), "")).flatMap((o) => o.lines);
    expect(records).toHaveLength(1);
    expect(records[0]!.caller).toMatch(/^src\/logger\/console-echo\.test\.ts:\d+$/);
  });
});
