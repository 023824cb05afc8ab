import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { isStowageError } from "./errors.js";
import { readCapped } from "./read-capped.js";

// the bounded replacement that the Buffer.concat lint ban names.
describe("readCapped", () => {
  it("joins byte and string chunks up to the cap", async () => {
    const body = Readable.from([Buffer.from("ab"), "cd", new Uint8Array([101])]);
    expect((await readCapped(body, 5, "test body")).toString("utf8")).toBe("abcde");
  });

  it("stops at the first byte past the cap with an error naming the body", async () => {
    let pulled = 0;
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 10; i++) {
        pulled++;
        yield Buffer.alloc(4);
      }
    }
    const err = await readCapped(chunks(), 6, "manifest m.json").catch((e: unknown) => e);
    expect(isStowageError(err, "format")).toBe(true);
    expect((err as Error).message).toContain("manifest m.json is larger than 6 B");
    expect(pulled).toBe(2);
  });
});
