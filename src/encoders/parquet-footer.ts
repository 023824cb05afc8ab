/**
 * Reads back the one figure of a Parquet footer that checks need: the file's row count
 * (`FileMetaData.num_rows`, thrift compact protocol), from the file's tail. Everything before
 * it in the struct (version, schema) is skipped field by field, so any writer's footer reads.
 */
import { StowageError } from "../shared/errors.js";

const PAR1 = "PAR1";

class Reader {
  constructor(
    private readonly b: Uint8Array,
    public at: number,
  ) {}
  byte(): number {
    if (this.at >= this.b.length) throw new StowageError("format", "the Parquet footer ends early");
    return this.b[this.at++]!;
  }
  varint(): bigint {
    let shift = 0n;
    let out = 0n;
    for (;;) {
      const x = this.byte();
      out |= BigInt(x & 0x7f) << shift;
      if ((x & 0x80) === 0) return out;
      shift += 7n;
    }
  }
  zigzag(): bigint {
    const v = this.varint();
    return (v >> 1n) ^ -(v & 1n);
  }
  skip(type: number): void {
    switch (type) {
      case 1: // true
      case 2: // false
        return;
      case 3:
        this.at++;
        return;
      case 4:
      case 5:
      case 6:
        this.varint();
        return;
      case 7:
        this.at += 8;
        return;
      case 8: {
        const len = Number(this.varint()); // read first: `this.at += …` would keep the old offset
        this.at += len;
        return;
      }
      case 9:
      case 10: {
        const h = this.byte();
        const size = h >> 4 === 15 ? Number(this.varint()) : h >> 4;
        for (let i = 0; i < size; i++) this.skip(h & 0x0f);
        return;
      }
      case 11: {
        const size = Number(this.varint());
        if (size === 0) return;
        const kv = this.byte();
        for (let i = 0; i < size; i++) {
          this.skip(kv >> 4);
          this.skip(kv & 0x0f);
        }
        return;
      }
      case 12:
        this.struct(() => false);
        return;
      default:
        throw new StowageError("format", `unknown thrift type ${type} in a Parquet footer`);
    }
  }
  /** Walks a struct's fields; `visit` returns true when it consumed the field. */
  struct(visit: (id: number, type: number) => boolean): void {
    let id = 0;
    for (;;) {
      const h = this.byte();
      if (h === 0) return;
      const type = h & 0x0f;
      id = h >> 4 ? id + (h >> 4) : Number(this.zigzag());
      if (!visit(id, type)) this.skip(type);
    }
  }
}

/**
 * The row count of a Parquet file from its last bytes (the footer and the 8-byte trailer).
 * @example parquetRowCount(lastBytes) // 131072n
 */
export function parquetRowCount(tail: Uint8Array): bigint {
  const n = tail.length;
  if (n < 8 || Buffer.from(tail.subarray(n - 4)).toString("latin1") !== PAR1)
    throw new StowageError("format", "not a Parquet file (no PAR1 at its end)");
  const len = new DataView(tail.buffer, tail.byteOffset + n - 8, 4).getUint32(0, true);
  if (len + 8 > n)
    throw new StowageError("format", `the Parquet footer (${len} bytes) is not in the tail read`);
  const r = new Reader(tail, n - 8 - len);
  let rows: bigint | undefined;
  r.struct((id, type) => {
    if (id !== 3 || type !== 6) return false;
    rows = r.zigzag();
    return true;
  });
  if (rows === undefined) throw new StowageError("format", "the Parquet footer has no num_rows");
  return rows;
}
