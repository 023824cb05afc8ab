/**
 * CSV (RFC 4180): a header row, CRLF line ends, fields quoted when they hold
 * `"`, `,`, CR or LF (quotes doubled). NULL is an empty field; an empty string
 * is `""`, so the two stay distinguishable. Optional gzip (one member).
 */
import type { ColumnKind, ColumnSpec, Row } from "./columns.js";
import { formatDate, formatTimestamp } from "./values.js";
import type { Format, FormatOptions } from "./format.js";
import { TextFileEncoder } from "./text-encoder.js";

const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV field (already quoted when needed). */
export function csvQuote(s: string): string {
  if (s === "") return '""';
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * `csvQuote` on UTF-8 bytes: writes `src[start, end)` as one CSV field at `at` and
 * returns the offset after it. Room needed: 2 × (end − start) + 2 bytes.
 */
export function writeCsvText(
  out: Buffer,
  at: number,
  src: Uint8Array,
  start: number,
  end: number,
): number {
  if (start === end) {
    out[at] = 34;
    out[at + 1] = 34;
    return at + 2;
  }
  let plain = true;
  for (let i = start; i < end; i++) {
    const c = src[i]!;
    if (c === 34 || c === 44 || c === 13 || c === 10) {
      plain = false;
      break;
    }
  }
  if (plain) {
    if (end - start > 48) {
      out.set(src.subarray(start, end), at);
      return at + end - start;
    }
    for (let i = start; i < end; i++) out[at++] = src[i]!;
    return at;
  }
  out[at++] = 34;
  for (let i = start; i < end; i++) {
    const c = src[i]!;
    if (c === 34) out[at++] = 34;
    out[at++] = c;
  }
  out[at++] = 34;
  return at;
}

/** The line end after every CSV row. */
export const CSV_EOL = "\r\n";

/** Renders a non-NULL value of `kind` as CSV field text. */
export function csvField(kind: ColumnKind): (v: unknown) => string {
  switch (kind) {
    case "int32":
    case "int64":
    case "float64":
    case "bool":
      return (v) => String(v); // a number, a bigint or (textValues) the integer's text
    case "decimal":
      return (v) => v as string;
    case "bytes":
      return (v) => csvQuote(Buffer.from(v as Uint8Array).toString("base64")); // empty bytes stay `""`, not NULL
    // Text values (`textValues`) are already export text: handed on as they came.
    case "timestamp":
      return (v) => (typeof v === "string" ? v : formatTimestamp(v as bigint, false));
    case "timestamptz":
      return (v) => (typeof v === "string" ? v : formatTimestamp(v as bigint, true));
    case "date":
      return (v) => (typeof v === "string" ? v : formatDate(v as number));
    default:
      return (v) => csvQuote(v as string);
  }
}

/** Builds the row renderer for `columns`. */
export function csvRenderer(columns: ColumnSpec[]): (row: Row) => string {
  const fields = columns.map((c) => csvField(c.kind));
  const n = fields.length;
  return (row) => {
    let line = "";
    for (let i = 0; i < n; i++) {
      const v = row[i];
      if (i > 0) line += ",";
      if (v !== null && v !== undefined) line += fields[i]!(v);
    }
    return line + CSV_EOL;
  };
}

/**
 * @example const csv = csvFormat({ format: "csv", compression: "gzip" }); csv.extension // "csv.gz"
 */
export function csvFormat(options: FormatOptions): Format {
  const gzip = options.compression === "gzip";
  return {
    name: "csv",
    compression: gzip ? "gzip" : "none",
    extension: gzip ? "csv.gz" : "csv",
    contentType: gzip ? "application/gzip" : "text/csv; charset=utf-8",
    async createEncoder(columns, sink) {
      const header = columns.map((c) => csvQuote(c.name)).join(",") + CSV_EOL;
      return new TextFileEncoder(
        sink,
        csvRenderer(columns),
        options.chunkBytes ?? 1024 * 1024,
        gzip,
        header,
        true,
      );
    },
  };
}
