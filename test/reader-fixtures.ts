/**
 * Test data for the reader tests: v1 objects written exactly as the format says
 * (§3.4) with the batch encoder and the v1 key/metadata helpers, through any ObjectStore.
 */
import { encodeBatch } from "../src/batch/encoder.js";
import {
  CONTENT_ENCODING,
  CONTENT_TYPE,
  formatObjectKey,
  objectMetadata,
  utcHourStart,
} from "../src/v1-format/object-key.js";
import type { ObjectStore } from "../src/store/object-store.js";
import { ulid } from "../src/shared/ids.js";

export interface FixtureRecord {
  timestamp: string;
  level: string;
  message: string;
  [k: string]: unknown;
}

const LEVELS = ["info", "info", "info", "debug", "warning", "error"];

/** `count` records evenly spread over `[fromMs, toMs)`, oldest first, each with a unique `seq`. */
export function spreadRecords(
  fromMs: number,
  toMs: number,
  count: number,
  extra: (i: number) => Record<string, unknown> = () => ({}),
): FixtureRecord[] {
  const step = (toMs - fromMs) / count;
  return Array.from({ length: count }, (_, i) => ({
    timestamp: new Date(Math.floor(fromMs + i * step)).toISOString(),
    level: LEVELS[i % LEVELS.length]!,
    message: `request ${i} handled`,
    service: "api",
    seq: i,
    data: { route: `/orders/${i % 17}`, ms: i % 250 },
    ...extra(i),
  }));
}

export interface WrittenObject {
  key: string;
  records: number;
  size: number;
  minMs: number;
  maxMs: number;
}

/** Writes records as v1 objects: grouped by UTC hour, `perObject` records per batch. */
export async function writeV1(
  store: ObjectStore,
  prefix: string,
  records: FixtureRecord[],
  perObject: number,
): Promise<WrittenObject[]> {
  const byHour = new Map<number, FixtureRecord[]>();
  for (const r of records) {
    const h = utcHourStart(Date.parse(r.timestamp));
    const list = byHour.get(h) ?? [];
    list.push(r);
    byHour.set(h, list);
  }
  const out: WrittenObject[] = [];
  for (const list of byHour.values()) {
    for (let i = 0; i < list.length; i += perObject) {
      out.push(
        await putBatch(
          store,
          prefix,
          list.slice(i, i + perObject).map((r) => JSON.stringify(r)),
        ),
      );
    }
  }
  return out;
}

/** Writes one batch of ready JSON lines (all in one UTC hour) as a v1 object. */
export async function putBatch(
  store: ObjectStore,
  prefix: string,
  lines: string[],
  times?: { minMs: number; maxMs: number },
): Promise<WrittenObject> {
  const ms = lines
    .map((l) => {
      try {
        return Date.parse((JSON.parse(l) as { timestamp: string }).timestamp);
      } catch {
        return NaN;
      }
    })
    .filter(Number.isFinite);
  const minMs = times?.minMs ?? ms.reduce((a, b) => Math.min(a, b), Infinity);
  const maxMs = times?.maxMs ?? ms.reduce((a, b) => Math.max(a, b), -Infinity);
  const enc = encodeBatch({ lines, minMs, maxMs });
  const key = formatObjectKey({ prefix, minMs, maxMs, batchId: ulid() });
  await putRaw(store, key, enc.body, {
    minMs,
    maxMs,
    records: enc.records,
    decodedBytes: enc.decodedBytes,
  });
  return { key, records: lines.length, size: enc.body.length, minMs, maxMs };
}

/** Puts raw bytes under a key with v1 metadata (for corrupt or oversized objects). */
export async function putRaw(
  store: ObjectStore,
  key: string,
  body: Uint8Array,
  meta: { minMs: number; maxMs: number; records: number; decodedBytes: number },
): Promise<void> {
  await store.put(key, body, {
    ifNoneMatch: "*",
    contentType: CONTENT_TYPE,
    contentEncoding: CONTENT_ENCODING,
    metadata: objectMetadata(meta),
  });
}

/** The v1 key of a batch with the given times (for hand-made objects). */
export function v1Key(prefix: string, minMs: number, maxMs: number): string {
  return formatObjectKey({ prefix, minMs, maxMs, batchId: ulid() });
}
