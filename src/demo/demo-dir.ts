/**
 * The demo's own directory: `stowage demo --dir D` replaces only a
 * store it created itself, recognised by a marker file; a store an application
 * wrote (no marker) is refused, never deleted.
 */
import { existsSync, readdirSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { StowageError } from "../shared/errors.js";

/** Written next to `store/` when the demo creates it. */
export const DEMO_MARKER = ".stowage-demo";

/**
 * Prepares `<root>/store` for a fresh demo run: removes a previous demo store,
 * refuses a store the demo did not create, and writes the marker.
 * @example await prepareDemoStore("/app/.stowage/demo") // "/app/.stowage/demo/store"
 */
export async function prepareDemoStore(root: string): Promise<string> {
  const store = join(root, "store");
  const marker = join(root, DEMO_MARKER);
  const hasStore = existsSync(store) && readdirSync(store).length > 0;
  if (hasStore && !existsSync(marker)) {
    throw new StowageError(
      "usage",
      `${store} holds a store that stowage demo did not create (no ${DEMO_MARKER} marker in ${root}); the demo replaces only its own store, so it left this one alone`,
      { hint: "pass --dir with a new or empty directory (the default is .stowage/demo)" },
    );
  }
  await rm(store, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  await writeFile(marker, "created by stowage demo: its store/ is replaced on every run\n");
  return store;
}
