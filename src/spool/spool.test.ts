/** Runs the Spool contract against SqliteSpool (real files) and MemorySpool (test support; the suite's own sanity check). */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { MemorySpool } from "../../test/support/memory-spool.js";
import { runSpoolContract } from "./spool.contract.js";
import { SqliteSpool } from "./sqlite-spool.js";

const dir = mkdtempSync(join(tmpdir(), "stowage-spool-contract-"));
let n = 0;

runSpoolContract("SqliteSpool", {
  location: () => join(dir, `s${++n}`, "spool.db"),
  open: (loc, options) => SqliteSpool.open(loc, options),
});

runSpoolContract("MemorySpool", {
  location: () => `mem-${randomBytes(6).toString("hex")}`,
  open: (loc, options) => MemorySpool.open(loc, options),
});
