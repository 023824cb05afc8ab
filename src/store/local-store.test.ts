import { mkdtempSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { LocalStore } from "./local-store.js";
import { runObjectStoreContract } from "./object-store.contract.js";

const root = mkdtempSync(join(tmpdir(), "stowage-local-"));
let n = 0;
runObjectStoreContract("LocalStore", async () => ({
  store: new LocalStore({ root }),
  prefix: `p${n++}`,
}));

it("§3.4 local store: objects are plain files at their key; sidecars and temp files are hidden from listing", async () => {
  const r = mkdtempSync(join(tmpdir(), "stowage-local-"));
  const store = new LocalStore({ root: r });
  await store.put("v1/2026/01/01/00/x.ndjson.gz", "data", {
    ifNoneMatch: "*",
    metadata: { records: "1" },
  });
  expect(await readdir(join(r, "v1/2026/01/01/00"))).toEqual(
    [".x.ndjson.gz.stowage-meta", "x.ndjson.gz"].sort(),
  );
  expect((await store.list()).entries.map((e) => e.key)).toEqual(["v1/2026/01/01/00/x.ndjson.gz"]);
  await expect(store.put("../escape", "x")).rejects.toThrow(/invalid object key/);
});

it("§3.4 local store: concurrent exclusive creates of one key — exactly one wins", async () => {
  const store = new LocalStore({ root: mkdtempSync(join(tmpdir(), "stowage-local-")) });
  const results = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) => store.put("k", `v${i}`, { ifNoneMatch: "*" })),
  );
  expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
});
