import { describe, expect, it } from "vitest";
import { isStowageError } from "./errors.js";
import { isLevelEnabled, LEVEL_VALUES, LEVELS, levelValue, parseLevel } from "./levels.js";

describe("levels", () => {
  it("§3.1 levels are ordered trace < debug < info < success < warning < error < critical", () => {
    const values = LEVELS.map((l) => LEVEL_VALUES[l]);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    expect(new Set(values).size).toBe(7);
    expect(isLevelEnabled("error", "warning")).toBe(true);
    expect(isLevelEnabled("info", "warning")).toBe(false);
  });

  it("§3.1 aliases warn→warning and fatal→critical, case-insensitive", () => {
    expect(parseLevel("warn")).toBe("warning");
    expect(parseLevel("FATAL")).toBe("critical");
    expect(parseLevel(" Success ")).toBe("success");
    expect(levelValue("fatal")).toBe(LEVEL_VALUES.critical);
  });

  it("§3.1 a bad level throws a config error listing the valid names", () => {
    for (const bad of ["verbose", "", 3, null, "__proto__", "toString"]) {
      let err: unknown;
      try {
        parseLevel(bad);
      } catch (e) {
        err = e;
      }
      expect(isStowageError(err, "config")).toBe(true);
      expect((err as Error).message).toContain(
        "trace, debug, info, success, warning, error, critical",
      );
    }
  });
});
