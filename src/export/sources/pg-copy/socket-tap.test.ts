/**
 * SPEC §7.2: the socket tap of a COPY frames the PostgreSQL protocol itself: CopyData
 * payloads go to the reader, every other message to the driver, in order, however the
 * bytes are cut into chunks.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { tapCopyData } from "./socket-tap.js";

/** A backend message: type byte, length (counting itself), payload. */
function msg(type: string, payload: Buffer | string): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload) : payload;
  const head = Buffer.alloc(5);
  head[0] = type.charCodeAt(0);
  head.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

describe("the socket tap of a COPY (protocol framing)", () => {
  // What a COPY's answer looks like on the wire: CopyOutResponse, a notice, CopyData messages
  // (one of them empty), CopyDone, CommandComplete, ReadyForQuery — then a later query's bytes.
  const payloads = [
    Buffer.from("PGCOPY-header"),
    Buffer.alloc(0),
    Buffer.from("row one"),
    Buffer.alloc(300, 7),
  ];
  const before = [msg("H", Buffer.from([1, 0, 0])), msg("N", "Snotice\0\0")];
  const after = [msg("c", ""), msg("C", "COPY 3\0"), msg("Z", "I"), msg("T", "later")];
  const wire = Buffer.concat([...before, ...payloads.map((p) => msg("d", p)), ...after]);
  const driverBytes = Buffer.concat([...before, ...after]);

  function run(chunks: Buffer[]) {
    const stream = new EventEmitter();
    const toDriver: Buffer[] = [];
    const driver = (c: Buffer) => toDriver.push(Buffer.from(c));
    stream.on("data", driver);
    const data: Buffer[] = [];
    const tap = tapCopyData(stream, (b, s, e) => data.push(Buffer.from(b.subarray(s, e))));
    expect(tap).toBeDefined();
    for (const c of chunks) stream.emit("data", c);
    return {
      data: Buffer.concat(data),
      driver: Buffer.concat(toDriver),
      restored: stream.listeners("data").length === 1 && stream.listeners("data")[0] === driver,
    };
  }

  it("CopyData payloads go to the reader, every other byte to the driver in order, at every cut", () => {
    const expected = { data: Buffer.concat(payloads), driver: driverBytes, restored: true };
    expect(run([wire])).toEqual(expected);
    for (let cut = 1; cut < wire.length; cut++)
      expect(run([wire.subarray(0, cut), wire.subarray(cut)])).toEqual(expected);
    const bytes = [...wire].map((b) => Buffer.from([b]));
    expect(run(bytes)).toEqual(expected);
  });

  it("an ErrorResponse ends the tap: it and everything after reach the driver", () => {
    const failing = Buffer.concat([
      before[0]!,
      msg("d", "x"),
      msg("E", "SERROR\0\0"),
      msg("Z", "I"),
    ]);
    for (let cut = 1; cut < failing.length; cut++) {
      const r = run([failing.subarray(0, cut), failing.subarray(cut)]);
      expect(r.data.toString()).toBe("x");
      expect(r.driver).toEqual(Buffer.concat([before[0]!, msg("E", "SERROR\0\0"), msg("Z", "I")]));
      expect(r.restored).toBe(true);
    }
  });

  it("a socket with other 'data' listeners is left alone", () => {
    const stream = new EventEmitter();
    stream.on("data", () => undefined);
    stream.on("data", () => undefined);
    expect(tapCopyData(stream, () => undefined)).toBeUndefined();
    expect(stream.listeners("data").length).toBe(2);
  });
});
