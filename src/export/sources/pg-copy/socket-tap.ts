/**
 * Takes one COPY's CopyData messages off the driver's protocol parser. PostgreSQL sends
 * a message per row, and the driver makes a Buffer, a message object and an event of
 * each; here the payloads go to `onData` as ranges of the socket's chunks, unsliced.
 *
 * Invariants:
 * - installed in place of the driver's one 'data' listener before the statement is sent;
 * - every message that is not CopyData (CopyOutResponse, notices, ErrorResponse,
 *   CopyDone…) reaches the driver unchanged, in order;
 * - after CopyDone or an ErrorResponse, or when the socket closes, the driver's listener
 *   is put back and handed the rest of the stream.
 */

type DataListener = (chunk: Buffer) => void;

/** The 'data' events of a socket (a `net.Socket` or `tls.TLSSocket`). */
export interface DataStream {
  listeners(event: "data"): unknown[];
  on(event: "data" | "close", listener: DataListener): unknown;
  removeListener(event: "data" | "close", listener: DataListener): unknown;
}

/**
 * Installs the tap. Returns undefined (the driver's own path is used) unless the socket
 * has exactly one 'data' listener.
 * @example const tap = tapCopyData(client.connection.stream, (buf, start, end) => …); tap?.remove();
 */
export function tapCopyData(
  stream: DataStream,
  onData: (buf: Buffer, start: number, end: number) => void,
): { remove(): void } | undefined {
  const found = stream.listeners("data");
  if (found.length !== 1 || typeof found[0] !== "function") return undefined;
  return new SocketTap(stream, found[0] as DataListener, onData);
}

/** The protocol framing of the tapped socket: which bytes are CopyData, which the driver's. */
class SocketTap {
  private carry: Buffer | undefined; // an incomplete message header
  private remaining = 0; // bytes of the current message still to come
  private inData = false; // the current message is CopyData
  private last = false; // the current message is CopyDone or ErrorResponse
  private removed = false;
  private readonly tap: DataListener = (chunk) => this.chunk(chunk);

  constructor(
    private readonly stream: DataStream,
    private readonly driver: DataListener,
    private readonly onData: (buf: Buffer, start: number, end: number) => void,
  ) {
    stream.removeListener("data", driver);
    stream.on("data", this.tap);
    stream.on("close", this.remove);
  }

  /** Gives the socket back to the driver (idempotent). */
  readonly remove = (): void => {
    if (this.removed) return;
    this.removed = true;
    this.stream.removeListener("data", this.tap);
    this.stream.removeListener("close", this.remove);
    this.stream.on("data", this.driver);
  };

  private chunk(chunk: Buffer): void {
    let buf = chunk;
    if (this.carry) {
      // eslint-disable-next-line no-restricted-syntax
      buf = Buffer.concat([this.carry, chunk]); // at most 4 bytes carried
      this.carry = undefined;
    }
    const end = buf.length;
    let pos = 0;
    let forwardFrom = -1; // start of bytes for the driver, not yet handed on
    const forward = (to: number) => {
      if (forwardFrom >= 0 && to > forwardFrom) this.driver(buf.subarray(forwardFrom, to));
      forwardFrom = -1;
    };
    while (pos < end) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, end - pos);
        if (this.inData) this.onData(buf, pos, pos + take);
        else if (forwardFrom < 0) forwardFrom = pos;
        pos += take;
        this.remaining -= take;
        if (this.remaining === 0 && this.last) {
          forward(pos);
          this.remove();
          if (pos < end) this.driver(buf.subarray(pos));
          return;
        }
        continue;
      }
      if (end - pos < 5) {
        forward(pos);
        this.carry = Buffer.from(buf.subarray(pos));
        return;
      }
      const code = buf[pos]!;
      const length = buf.readUInt32BE(pos + 1); // counts itself, not the type byte
      if (code === 0x64) {
        forward(pos);
        this.inData = true;
        this.last = false;
        pos += 5;
        this.remaining = length - 4;
      } else {
        if (forwardFrom < 0) forwardFrom = pos;
        this.inData = false;
        this.last = code === 0x63 || code === 0x45; // CopyDone, ErrorResponse
        this.remaining = length + 1;
      }
    }
    forward(end);
  }
}
