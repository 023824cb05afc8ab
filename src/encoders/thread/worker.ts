/**
 * Entry of the encoding thread: runs the same Format encoders as the main
 * thread (encoders/*.ts) for every output of a run, and posts their bytes back.
 * Loaded only through `new Worker(...)` by thread.ts; importing it elsewhere does
 * nothing. Requests are handled one after another, in the order they came.
 */
import { parentPort } from "node:worker_threads";
import { createFormat, type ByteSink, type Encoder } from "../format.js";
import { unpackRows, type FromWorker, type ToWorker, type WireError } from "./protocol.js";

function toWire(err: unknown): WireError {
  const e = err as { name?: unknown; code?: unknown; message?: unknown; hint?: unknown } | null;
  const code = typeof e?.code === "string" && e?.name === "StowageError" ? e.code : "internal";
  return {
    code: code as WireError["code"],
    message: typeof e?.message === "string" ? e.message : String(err),
    ...(typeof e?.hint === "string" ? { hint: e.hint } : {}),
  };
}

const port = parentPort;
if (port) {
  const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);
  const encoders = new Map<number, Encoder>();
  const failed = new Map<number, WireError>();

  const handle = async (m: ToWorker): Promise<void> => {
    const earlier = failed.get(m.id);
    if (earlier) return post({ t: "error", id: m.id, seq: m.seq, error: earlier });
    try {
      let enc = encoders.get(m.id);
      if (m.t === "open") {
        const format = await createFormat(m.format);
        const sink: ByteSink = {
          // The encoder reuses its chunk once `write` resolved: the copy is what travels.
          async write(chunk) {
            const copy = new Uint8Array(chunk.length); // a Buffer's slice() would share memory
            copy.set(chunk);
            post({ t: "bytes", id: m.id, chunk: copy }, [copy.buffer as ArrayBuffer]);
          },
        };
        enc = await format.createEncoder(m.columns, sink);
        encoders.set(m.id, enc);
      } else if (!enc) {
        throw new Error(`no encoder ${m.id} in the encoding thread`);
      } else if (m.t === "rows") {
        await enc.write(unpackRows(m.cols, m.count));
      } else {
        await enc.finish();
        encoders.delete(m.id);
      }
      post({
        t: "done",
        id: m.id,
        seq: m.seq,
        buffered: enc.bufferedBytes,
        peak: enc.peakBufferedBytes,
        bound: enc.boundBytes,
      });
    } catch (err) {
      const error = toWire(err);
      failed.set(m.id, error);
      encoders.delete(m.id);
      post({ t: "error", id: m.id, seq: m.seq, error });
    }
  };

  let queue = Promise.resolve();
  port.on("message", (m: ToWorker) => {
    queue = queue.then(() => handle(m));
  });
}
