/**
 * Text in and out of Buffers on hot paths, through Node's unchecked `utf8Write` /
 * `utf8Slice` where the runtime has them (Buffer#write and #toString add argument
 * normalisation per call, which shows on per-field calls), `write` / `toString`
 * elsewhere. Offsets must be in range: callers reserve space first. Used by the log
 * batcher, the export text encoder, the Parquet chunk writer and the COPY decoder.
 */
type Write = (this: Buffer, s: string, offset: number) => number;
type Slice = (this: Buffer, start: number, end: number) => string;

const proto = Buffer.prototype as unknown as {
  utf8Write?: Write;
  utf8Slice?: Slice;
  latin1Slice?: Slice;
};
const write: Write =
  proto.utf8Write ??
  function (this: Buffer, s: string, offset: number) {
    return this.write(s, offset, "utf8");
  };
const slice: Slice =
  proto.utf8Slice ??
  function (this: Buffer, start: number, end: number) {
    return this.toString("utf8", start, end);
  };

const latin1: Slice =
  proto.latin1Slice ??
  function (this: Buffer, start: number, end: number) {
    return this.toString("latin1", start, end);
  };

/** Strings up to this length are tried as ASCII in JavaScript: cheaper than the native call. */
const SHORT = 24;

/**
 * Writes `s` as UTF-8 at `offset`; returns the bytes written (as Node's writer: what
 * fits, when the buffer lacks room — callers reserve space first).
 */
export function utf8Write(buf: Buffer, s: string, offset: number): number {
  const n = s.length;
  if (n <= SHORT && offset + n <= buf.length) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 127) break;
      buf[offset + i] = c;
    }
    if (i === n) return n;
  }
  return write.call(buf, s, offset);
}

/** The UTF-8 text of `buf[start, end)`. */
export function utf8Slice(buf: Buffer, start: number, end: number): string {
  return slice.call(buf, start, end);
}

/** The Latin-1 text of `buf[start, end)` (ASCII written by the export's byte writers). */
export function latin1Slice(buf: Buffer, start: number, end: number): string {
  return latin1.call(buf, start, end);
}
