// Issue 35 §6: the deep imports of hyparquet-writer's internals go through one wrapper, and
// an upgrade that moves or changes them fails here, not in an export at run time.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import * as internals from "./hyparquet-internals.js";

describe("hyparquet-writer internals (one pinned wrapper)", () => {
  it("the installed and the declared version are the one the wrapper was written against", () => {
    // Its exports map hides package.json: read the installed copy's file.
    const manifest = join(import.meta.dirname, "../../node_modules/hyparquet-writer/package.json");
    const installed = (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
    expect(installed).toBe(internals.HYPARQUET_WRITER_VERSION);
    expect(pkg.dependencies["hyparquet-writer"]).toBe(internals.HYPARQUET_WRITER_VERSION);
  });

  it("every internal the writer uses is a function of the expected arity", () => {
    expect(typeof internals.writePageHeader).toBe("function");
    expect(typeof internals.writeRleBitPackedHybrid).toBe("function");
    expect(typeof internals.writeMetadata).toBe("function");
    expect(typeof internals.snappyCompress).toBe("function");
    expect(internals.writePageHeader.length).toBeGreaterThanOrEqual(2);
    expect(internals.writeMetadata.length).toBeGreaterThanOrEqual(2);
  });
});
