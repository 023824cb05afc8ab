/**
 * Log levels (§3.1) as the record model sees them. They live in shared/levels so
 * that config/ (a sibling of record/) can validate level names too.
 */
export * from "../shared/levels.js";
