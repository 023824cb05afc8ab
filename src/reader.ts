/** `stowage/reader`: bounded reading of v1 log objects (§5). Re-exports only. */
export * from "./reader/index.js";
