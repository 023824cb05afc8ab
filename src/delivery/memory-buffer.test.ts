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

it("§3.5 limits are held in UTF-8 bytes, measured only near them: maxRecordBytes and maxQueueBytes refuse multi-byte lines exactly", async () => {
  const store = new LocalStore({ root: mkdtempSync(join(tmpdir(), "stowage-sink-")) });
  const limits = { ...DELIVERY_DEFAULTS, maxRecordBytes: 301, maxQueueBytes: 1000 };
  const events: { type: string; reason?: string; bytes?: number }[] = [];
  const sink = new DeliverySink(
    "local",
    store,
    { ...limits, onEvent: (e) => events.push(e) },
    (host) => new MemoryBuffer(host, { ...limits, prefix: "" }),
  );
  const t = Date.UTC(2026, 0, 1);
  const line = (chars: string) => `{"s":"${chars}"}`; // 8 ASCII bytes around the text
  // 146 two-byte characters: 154 UTF-16 units (under the limit), 301 bytes with the newline.
  expect(sink.accept(line("é".repeat(146)), t)).toBeNull();
  // One more: 303 bytes, though only 155 units.
  expect(sink.accept(line("é".repeat(147)), t)).toBe("oversized");
  expect(events.at(-1)).toMatchObject({ type: "rejected", reason: "oversized", bytes: 303 });
  // The queue holds 1000 bytes: 301 + 301 + 301 = 903, then 97 bytes left.
  expect(sink.accept(line("é".repeat(146)), t)).toBeNull();
  expect(sink.accept(line("é".repeat(146)), t)).toBeNull();
  expect(sink.accept(line("€".repeat(30)), t)).toBe("queueFull"); // 99 bytes, 38 units
  expect(events.at(-1)).toMatchObject({ reason: "queueFull", bytes: 99 });
  expect(sink.accept(line("€".repeat(29)), t)).toBeNull(); // 96 bytes: fits
  const { result } = await sink.close(5_000);
  expect(result).toMatchObject({
    ok: true,
    delivered: 4,
    pending: 0,
    rejected: { oversized: 1, queueFull: 1 },
  });
});
