/** The `stowage` package: the logger and its config helpers. Re-exports only. */
export { StowageError, isStowageError } from "./shared/errors.js";
export type { StowageErrorCode } from "./shared/errors.js";
