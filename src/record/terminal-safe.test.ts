/** Terminal escaping of stored text. */
import { describe, expect, it } from "vitest";
import { escapeTerminal } from "./terminal-safe.js";

describe("escapeTerminal", () => {
  it("makes OSC title, CSI clear-screen, carriage return, BEL and C1 controls visible", () => {
    const hostile = "ok\u001b]0;pwned\u0007\u001b[2J\rfake line\u009b31m\u0000\u007f";
    const out = escapeTerminal(hostile);
    expect(out).toBe("ok\\e]0;pwned\\x07\\e[2J\\rfake line\\x9b31m\\x00\\x7f");
    expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it("escapes bidi overrides, keeps printable text (accents, CJK, emoji) unchanged", () => {
    expect(escapeTerminal("a\u202edcba")).toBe("a\\u202edcba");
    expect(escapeTerminal("café 日本 🚀 | tab\there")).toBe("café 日本 🚀 | tab\\there");
  });

  it("keepNewlines keeps line breaks of stacks but still escapes \\r and ESC", () => {
    expect(escapeTerminal("Error: x\n    at a\r\u001b[1A", { keepNewlines: true })).toBe(
      "Error: x\n    at a\\r\\e[1A",
    );
    expect(escapeTerminal("a\nb")).toBe("a\\nb");
  });
});
