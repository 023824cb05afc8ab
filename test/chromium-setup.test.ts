// `npm test` on a fresh machine obtains Chromium the way it builds MinIO,
// or fails the browser tests with a message saying what to do; it never skips them.
import { describe, expect, it } from "vitest";
import {
  chromiumPlan,
  DEBIAN_CHROMIUM,
  machineFacts,
  type MachineFacts,
} from "./support/chromium.js";

const facts = (over: Partial<MachineFacts>): MachineFacts => ({
  envPath: undefined,
  executable: () => false,
  isRoot: false,
  passwordlessSudo: false,
  hasAptGet: true,
  ...over,
});

describe("obtaining Chromium for the browser tests", () => {
  it("uses Debian's chromium when it is there", () => {
    const plan = chromiumPlan(facts({ executable: (p) => p === DEBIAN_CHROMIUM }));
    expect(plan).toEqual({ kind: "ready", path: DEBIAN_CHROMIUM });
  });

  it("installs it with apt-get as root, or with sudo -n when sudo needs no password", () => {
    expect(chromiumPlan(facts({ isRoot: true }))).toEqual({
      kind: "install",
      path: DEBIAN_CHROMIUM,
      sudo: false,
    });
    expect(chromiumPlan(facts({ passwordlessSudo: true }))).toMatchObject({ sudo: true });
  });

  it("refuses with the command to run when the user may not install packages", () => {
    const plan = chromiumPlan(facts({}));
    expect(plan.kind).toBe("refuse");
    expect(plan.kind === "refuse" && plan.message).toContain("sudo apt-get install -y chromium");
  });

  it("honours CHROMIUM_BIN, and names it when it is not executable", () => {
    const ok = chromiumPlan(facts({ envPath: "/opt/c/chrome", executable: () => true }));
    expect(ok).toEqual({ kind: "ready", path: "/opt/c/chrome" });
    const bad = chromiumPlan(facts({ envPath: "/nope/chrome", isRoot: true }));
    expect(bad.kind === "refuse" && bad.message).toContain("CHROMIUM_BIN=/nope/chrome");
  });

  it("without apt-get, says to install Chromium another way", () => {
    const plan = chromiumPlan(facts({ hasAptGet: false, isRoot: true }));
    expect(plan.kind === "refuse" && plan.message).toContain("no apt-get");
  });

  it("reads this machine's facts without prompting", () => {
    const f = machineFacts({});
    expect(f.envPath).toBeUndefined();
    expect(f.isRoot).toBe(process.getuid?.() === 0);
    expect(f.executable(process.execPath)).toBe(true);
  });
});
