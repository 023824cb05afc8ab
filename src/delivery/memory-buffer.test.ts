/** The memory buffer behind the DeliverySink: a batch lost before upload is counted and latched, never reported as delivered (SPEC §3.5). */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { DELIVERY_DEFAULTS } from "../config/logger-config.js";
import { LocalStore } from "../store/local-store.js";
import { DeliverySink } from "./delivery-sink.js";
import { MemoryBuffer } from "./memory-buffer.js";

it("§3.5 a batch that cannot be encoded latches a failure: flush is not ok and nothing counts as delivered", async () => {
  const store = new LocalStore({ root: mkdtempSync(join(tmpdir(), "stowage-sink-")) });
  // An invalid gzip level makes the encoder reject: the only way a sealed batch fails before upload.
  const sink = new DeliverySink(
    "local",
    store,
    DELIVERY_DEFAULTS,
    (host) => new MemoryBuffer(host, { ...DELIVERY_DEFAULTS, prefix: "", gzipLevel: 42 }),
  );
  for (let i = 0; i < 10; i++)
    expect(sink.accept(`{"i":${i}}`, Date.UTC(2026, 0, 1) + i)).toBeNull();
  const { result, timedOut } = await sink.close(5_000);
  expect(timedOut).toBe(false);
  expect(result).toMatchObject({ ok: false, delivered: 0, pending: 0, objects: 0 });
  expect(result.failure).toMatchObject({ category: "config", batches: 1 });
  expect((await store.list()).entries).toEqual([]);
});

it("a line the buffer refuses to keep (a newline inside) throws and is never counted", async () => {
  const store = new LocalStore({ root: mkdtempSync(join(tmpdir(), "stowage-sink-")) });
  const sink = new DeliverySink(
    "local",
    store,
    DELIVERY_DEFAULTS,
    (host) => new MemoryBuffer(host, { ...DELIVERY_DEFAULTS, prefix: "" }),
  );
  expect(() => sink.accept('{"a":\n1}', Date.UTC(2026, 0, 1))).toThrow(/newline/);
  expect(sink.accept('{"a":1}', Date.UTC(2026, 0, 1))).toBeNull();
  const { result } = await sink.close(5_000);
  expect(result).toMatchObject({ ok: true, delivered: 1, pending: 0, objects: 1 });
});
