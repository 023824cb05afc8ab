/**
 * NDJSON: one JSON object per line, keys in column order. int64 values are JSON
 * numbers with every digit; decimals, timestamps (ISO 8601) and bytes (base64) are
 * strings; JSON columns are embedded as JSON. Optional gzip (one member).
 */
import type { ColumnKind, ColumnSpec, Row } from "./columns.js";
import { formatDate, formatTimestamp } from "./values.js";
import type { Format, FormatOptions } from "./format.js";
import { TextFileEncoder } from "./text-encoder.js";

/** Renders a non-NULL value of `kind` as JSON text. */
export function jsonField(kind: ColumnKind): (v: unknown) => string {
  switch (kind) {
    case "int32":
    case "int64":
    case "bool":
      return (v) => String(v); // a number, a bigint or (textValues) the integer's text
    case "float64":
      // NaN and ±Infinity have no JSON number form: written as strings.
      return (v) => (Number.isFinite(v) ? String(v) : `"${String(v)}"`);
    case "bytes":
      return (v) => `"${Buffer.from(v as Uint8Array).toString("base64")}"`;
    // Text values (`textValues`) are already export text: only quoted.
    case "timestamp":
      return (v) => `"${typeof v === "string" ? v : formatTimestamp(v as bigint, false)}"`;
    case "timestamptz":
      return (v) => `"${typeof v === "string" ? v : formatTimestamp(v as bigint, true)}"`;
    case "date":
      return (v) => `"${typeof v === "string" ? v : formatDate(v as number)}"`;
    case "json":
      // Valid JSON has CR/LF only as whitespace outside strings: folding them keeps one row per line.
      return (v) => (v as string).replace(/[\r\n]+/g, " ");
    default:
      return (v) => JSON.stringify(v);
  }
}

/** Builds the row renderer for `columns`. */
export function ndjsonRenderer(columns: ColumnSpec[]): (row: Row) => string {
  const fields = columns.map((c) => jsonField(c.kind));
  const keys = columns.map((c, i) => (i === 0 ? "{" : ",") + JSON.stringify(c.name) + ":");
  const n = fields.length;
  return (row) => {
    let line = "";
    for (let i = 0; i < n; i++) {
      const v = row[i];
      line += keys[i]! + (v === null || v === undefined ? "null" : fields[i]!(v));
    }
    return (n === 0 ? "{" : line) + "}\n";
  };
}

/**
 * @example const nd = ndjsonFormat({ format: "ndjson", compression: "none" }); nd.extension // "ndjson"
 */
export function ndjsonFormat(options: FormatOptions): Format {
  const gzip = options.compression === "gzip";
  return {
    name: "ndjson",
    compression: gzip ? "gzip" : "none",
    extension: gzip ? "ndjson.gz" : "ndjson",
    contentType: gzip ? "application/gzip" : "application/x-ndjson",
    async createEncoder(columns, sink) {
      return new TextFileEncoder(
        sink,
        ndjsonRenderer(columns),
        options.chunkBytes ?? 1024 * 1024,
        gzip,
      );
    },
  };
}
