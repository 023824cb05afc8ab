/**
 * Builds the `buffer: "sqlite"` sink from a resolved logger config: the one
 * DeliverySink over a SqliteBuffer. Checks the spool file once, here, so a
 * foreign or corrupt file, or a spool bound to another destination, fails
 * createLogger with a clear error (and is never touched), then starts the worker
 * (which binds an unbound file to this destination before anything else).
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Env } from "../config/env.js";
import type { ResolvedDelivery, ResolvedLoggerConfig } from "../config/logger-config.js";
import { DeliverySink } from "../delivery/delivery-sink.js";
import type { DeliveryEventListener } from "../delivery/events.js";
import type { Sink } from "../delivery/sink.js";
import { StowageError } from "../shared/errors.js";
import type { ObjectStore } from "../store/object-store.js";
import { checkSpoolDestination, spoolDestinationId } from "./spool-destination.js";
import { SqliteBuffer } from "./sqlite-buffer.js";
import { openSpoolDatabase } from "./sqlite-schema.js";

/** Margin over the longest upload (every attempt timing out) before a lease is considered abandoned. */
const LEASE_MARGIN_MS = 1_000;

/**
 * How long a lease (and an owner's heartbeat) lives: requestTimeoutMs × maxAttempts + 1 s,
 * or `STOWAGE_SPOOL_LEASE_MS`. Live owners renew every lease/3; a crashed owner's batches
 * and records become eligible again after this long.
 * @example spoolLeaseMs({ requestTimeoutMs: 10_000, maxAttempts: 5 }, {}) // 51_000
 */
export function spoolLeaseMs(
  d: Pick<ResolvedDelivery, "requestTimeoutMs" | "maxAttempts">,
  env: Env,
): number {
  const raw = env.STOWAGE_SPOOL_LEASE_MS;
  if (raw !== undefined && raw !== "") {
    const ms = Number(raw);
    if (!Number.isInteger(ms) || ms < 30) {
      throw new StowageError(
        "config",
        `STOWAGE_SPOOL_LEASE_MS="${raw}" is not a whole number of milliseconds ≥ 30; unset it or use e.g. 60000`,
      );
    }
    return ms;
  }
  return d.requestTimeoutMs * d.maxAttempts + LEASE_MARGIN_MS;
}

function checkSpoolFile(path: string, destination: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (err) {
    throw new StowageError(
      "spool",
      `cannot create the spool directory ${dirname(path)}: ${(err as Error).message}`,
      {
        cause: err,
        hint: "Set s3.delivery.spoolPath to a writable location.",
      },
    );
  }
  if (!existsSync(path)) return;
  const { db, empty } = openSpoolDatabase(path, { create: false, readonly: true });
  try {
    if (!empty) checkSpoolDestination(db, path, destination);
  } finally {
    db.close();
  }
}

/**
 * @example const sink = createSqliteSink(resolved, env, store);
 */
export function createSqliteSink(
  resolved: ResolvedLoggerConfig,
  env: Env,
  store: ObjectStore,
  onEvent?: DeliveryEventListener,
): Sink {
  const d = resolved.delivery;
  const dest = resolved.destination;
  const destination = spoolDestinationId(dest);
  checkSpoolFile(d.spoolPath, destination);
  const worker = {
    path: d.spoolPath,
    destination,
    prefix: dest.type === "s3" ? dest.prefix : "",
    leaseMs: spoolLeaseMs(d, env),
    maxBatchBytes: d.maxBatchBytes,
    maxBatchRecords: d.maxBatchRecords,
    flushIntervalMs: d.flushIntervalMs,
    window: Math.max(2, d.concurrency * 2),
  };
  return new DeliverySink(
    dest.type,
    store,
    {
      maxRecordBytes: d.maxRecordBytes,
      maxQueueBytes: d.maxQueueBytes,
      maxSpoolBytes: d.maxSpoolBytes,
      concurrency: d.concurrency,
      maxAttempts: d.maxAttempts,
      initialBackoffMs: d.initialBackoffMs,
      maxBackoffMs: d.maxBackoffMs,
      onEvent,
      ...(dest.type === "s3" && dest.objectLock ? { objectLock: dest.objectLock } : {}),
    },
    (host) => new SqliteBuffer(host, worker),
  );
}
