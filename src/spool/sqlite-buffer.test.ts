/**
 * The sqlite buffer behind the DeliverySink when its worker cannot keep the spool
 * (SPEC §3.5, §4): records it could not commit are counted failed and their write()
 * rejects with the spool's error, later records are refused and counted, the latch
 * says "spool", and nothing is left pending.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { DELIVERY_DEFAULTS } from "../config/logger-config.js";
import { DeliverySink } from "../delivery/delivery-sink.js";
import type { DeliveryEvent } from "../delivery/events.js";
import { isStowageError } from "../shared/errors.js";
import { LocalStore } from "../store/local-store.js";
import { SqliteBuffer } from "./sqlite-buffer.js";

it("§4 a spool that fails: the record in flight is lost and counted, later ones refused as spoolFull, the latch says spool", async () => {
  const store = new LocalStore({ root: mkdtempSync(join(tmpdir(), "stowage-sqlbuf-")) });
  // A directory where the spool file should be: the worker reports a fatal error on open.
  const notAFile = mkdtempSync(join(tmpdir(), "stowage-sqlbuf-dir-"));
  const events: DeliveryEvent[] = [];
  const sink = new DeliverySink(
    "local",
    store,
    { ...DELIVERY_DEFAULTS, onEvent: (e) => events.push(e) },
    (host) =>
      new SqliteBuffer(host, {
        path: notAFile,
        prefix: "",
        leaseMs: 1_000,
        maxBatchBytes: DELIVERY_DEFAULTS.maxBatchBytes,
        maxBatchRecords: DELIVERY_DEFAULTS.maxBatchRecords,
        flushIntervalMs: DELIVERY_DEFAULTS.flushIntervalMs,
        window: 4,
      }),
  );
  const ts = Date.UTC(2026, 0, 1);
  const first = await Promise.resolve(sink.acceptDurable('{"i":1}', ts)).catch((e: unknown) => e);
  expect(isStowageError(first, "spool")).toBe(true);
  expect(sink.accept('{"i":2}', ts)).toBe("spoolFull");
  const later = await Promise.resolve(sink.acceptDurable('{"i":3}', ts)).catch((e: unknown) => e);
  expect(isStowageError(later, "spool")).toBe(true);
  const flushed = await sink.flush(5_000);
  expect(flushed.timedOut).toBe(false);
  const { result, timedOut } = await sink.close(5_000);
  expect(timedOut).toBe(false);
  for (const r of [flushed.result, result]) {
    expect(r).toMatchObject({
      ok: false,
      delivered: 0,
      pending: 0,
      objects: 0,
      rejected: { oversized: 0, queueFull: 0, spoolFull: 1 },
    });
    expect(r.failure).toMatchObject({ category: "spool" });
  }
  expect(events.filter((e) => e.type === "latched")).toHaveLength(1);
  expect(events.filter((e) => e.type === "rejected")).toHaveLength(1);
}, 30_000);

it("§4 write() resolves once committed, also for a line that fills a group by itself and for many writes sharing one group", async () => {
  const store = new LocalStore({ root: mkdtempSync(join(tmpdir(), "stowage-sqlbuf-")) });
  const path = join(mkdtempSync(join(tmpdir(), "stowage-sqlbuf-ok-")), "spool.db");
  const sink = new DeliverySink(
    "local",
    store,
    { ...DELIVERY_DEFAULTS, maxRecordBytes: 1024 * 1024 },
    (host) =>
      new SqliteBuffer(host, {
        path,
        prefix: "",
        leaseMs: 5_000,
        maxBatchBytes: DELIVERY_DEFAULTS.maxBatchBytes,
        maxBatchRecords: DELIVERY_DEFAULTS.maxBatchRecords,
        flushIntervalMs: DELIVERY_DEFAULTS.flushIntervalMs,
        window: 4,
      }),
  );
  const ts = Date.UTC(2026, 0, 1);
  // 300 KiB: more than a group holds (256 KiB), so the group is posted inside the call.
  const big = JSON.stringify({ pad: "x".repeat(300 * 1024) });
  await expect(Promise.resolve(sink.acceptDurable(big, ts))).resolves.toBeNull();
  const many = Array.from({ length: 100 }, (_, i) => sink.acceptDurable(`{"i":${i}}`, ts));
  await expect(Promise.all(many)).resolves.toEqual(many.map(() => null));
  const { result, timedOut } = await sink.close(10_000);
  expect(timedOut).toBe(false);
  expect(result).toMatchObject({ ok: true, delivered: 101, pending: 0 });
}, 30_000);
