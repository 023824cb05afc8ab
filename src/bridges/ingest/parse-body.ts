/**
 * An ingestion body → candidate records: a JSON array, or NDJSON (one record
 * per line). Never throws: a body that is neither is `malformed`, and so is each
 * NDJSON line that does not parse. Per-record byte limits are applied here,
 * where each record's raw size is known.
 */

export interface ParsedBody {
  /**
   * The records, in order, each with its UTF-8 size and its index: its place among the
   * body's records (array elements, or non-blank lines), which the answer's `retry` names.
   */
  records: { value: unknown; bytes: number; index: number }[];
  /** Lines that were not JSON. */
  malformed: number;
  /** Records over maxRecordBytes. */
  oversized: number;
  /** The whole body could not be read as either form. */
  unreadable: boolean;
}

const encoder = new TextEncoder();

/** @example parseBody('{"message":"a"}\n{"message":"b"}\n', 1024).records.length // 2 */
export function parseBody(text: string, maxRecordBytes: number): ParsedBody {
  const out: ParsedBody = { records: [], malformed: 0, oversized: 0, unreadable: false };
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[")) {
    let arr: unknown;
    try {
      arr = JSON.parse(trimmed);
    } catch {
      out.unreadable = true;
      return out;
    }
    if (!Array.isArray(arr)) {
      out.unreadable = true;
      return out;
    }
    arr.forEach((value: unknown, index) => {
      const bytes = encoder.encode(JSON.stringify(value) ?? "").length;
      if (bytes > maxRecordBytes) out.oversized++;
      else out.records.push({ value, bytes, index });
    });
    return out;
  }
  let index = -1;
  for (const line of text.split("\n")) {
    const l = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (l.trim().length === 0) continue;
    index++;
    const bytes = encoder.encode(l).length;
    if (bytes > maxRecordBytes) {
      out.oversized++;
      continue;
    }
    try {
      out.records.push({ value: JSON.parse(l), bytes, index });
    } catch {
      out.malformed++;
    }
  }
  if (out.records.length === 0 && out.malformed > 0 && out.oversized === 0) out.unreadable = true;
  return out;
}
