/**
 * PostgreSQL rows through `COPY (query) TO STDOUT (FORMAT binary)`: the server sends
 * each row as length-prefixed binary fields, decoded straight into the portable values
 * of `ColumnKind` — integers, floats, dates and timestamps never pass through text — or,
 * for a CSV run, written straight into CSV lines (no value made). Used for queries
 * without bound parameters (COPY cannot take them) whose every column has a codec
 * (`copyTarget` returns undefined otherwise, and the source reads through its cursor).
 *
 * The roles: `codecs` (type OID → how a field is read; `fields`, `numeric`, `text-cache`
 * below it), `parser` (the COPY stream's framing), `batcher` (rows → batches of values
 * or CSV lines), `socket-tap` (CopyData read off the socket rather than through the
 * driver's per-message events), `copy-stream` (one statement as a `RowStream`),
 * `cancel-request` (stopping it early).
 */
export { copyTarget, hasDecoder, type CopyRowsTarget } from "./codecs.js";
export { copyRows, type CopyClient } from "./copy-stream.js";
