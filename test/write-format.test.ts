/** SPEC §3.4 format conformance of what the real logger writes, on MinIO and on the local store. */
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import { parseObjectKey } from "../src/v1-format/object-key.js";
import type { ObjectStore } from "../src/store/object-store.js";
import { localConfig, s3Config, s3Reader } from "./support/loggers.js";
import { listAll, readBack } from "./support/read-back.js";
import { uniquePrefix } from "./support/minio.js";

const KEY_RE =
  /^(.*\/)?v1\/(\d{4})\/(\d{2})\/(\d{2})\/(\d{2})\/(\d{13})-(\d{13})-(\d{13})-([0-9A-HJKMNP-TV-Z]{26}|[0-9a-f]{32})\.ndjson\.gz$/;
const readers: ObjectStore[] = [];
afterAll(() => readers.forEach((r) => r.close()));

const targets: [string, () => { config: object; store: ObjectStore; prefix: string }][] = [
  [
    "MinIO",
    () => {
      const prefix = uniquePrefix("format");
      const store = s3Reader();
      readers.push(store);
      return { config: s3Config(prefix, { maxBatchRecords: 500 }), store, prefix: `${prefix}/` };
    },
  ],
  [
    "LocalStore",
    () => {
      const { config, store } = localConfig({ maxBatchRecords: 500 });
      return { config, store, prefix: "" };
    },
  ],
];

describe.each(targets)("§3.4 v1 objects on %s", (_name, make) => {
  it("every key matches the layout; bodies, metadata and keys agree; hour boundary splits folders", async () => {
    const { config, store, prefix } = make();
    const log = createLogger(config as Parameters<typeof createLogger>[0]);
    const h10 = Date.UTC(2026, 10, 28, 10, 0, 0);
    const times = [h10 + 3_599_000, h10 + 3_599_999, h10 + 3_600_000, h10 + 3_601_000];
    for (let i = 0; i < 1200; i++) {
      const t = times[i % times.length]! - (i % 7) * 1000;
      await log.write({
        timestamp: new Date(t).toISOString(),
        level: "info",
        message: `m${i}`,
        data: { id: i, text: "é ☃ 🚀" },
      });
    }
    const res = await log.close({ timeoutMs: 30_000 });
    expect(res.ok).toBe(true);
    expect(Object.values(res.destinations)[0]).toMatchObject({ delivered: 1200, pending: 0 });

    const objects = await readBack(store, prefix);
    expect(objects.length).toBeGreaterThanOrEqual(4); // two hours, ≤ 500 records each
    let total = 0;
    const hours = new Set<string>();
    for (const o of objects) {
      const m = KEY_RE.exec(o.key);
      expect(m, o.key).not.toBeNull();
      const [, , yyyy, mm, dd, hh, rev, min, max] = m!;
      hours.add(`${yyyy}/${mm}/${dd}/${hh}`);
      expect(Number(rev)).toBe(9_999_999_999_999 - Number(max));
      expect(o.text.endsWith("\n")).toBe(true);
      const ts = o.lines.map((l) => Date.parse(String(l.timestamp)));
      expect(Math.min(...ts)).toBe(Number(min));
      expect(Math.max(...ts)).toBe(Number(max));
      for (const t of ts)
        expect(new Date(t).toISOString().slice(0, 13)).toBe(`${yyyy}-${mm}-${dd}T${hh}`);
      expect(o.info.metadata).toMatchObject({
        "stowage-format": "1",
        "min-ms": min,
        "max-ms": max,
        records: String(o.lines.length),
        "decoded-bytes": String(Buffer.byteLength(o.text)),
      });
      expect(o.info.contentType).toBe("application/x-ndjson");
      expect(o.info.contentEncoding).toBe("gzip");
      expect(parseObjectKey(o.key, prefix.replace(/\/$/, ""))).not.toBeNull();
      total += o.lines.length;
    }
    expect(total).toBe(1200);
    expect([...hours].sort()).toEqual(["2026/11/28/10", "2026/11/28/11"]);
  });

  it("a plain listing of an hour returns the newest batches first", async () => {
    const { config, store, prefix } = make();
    const log = createLogger(config as Parameters<typeof createLogger>[0]);
    const base = Date.UTC(2026, 10, 28, 12, 0, 0);
    for (let b = 0; b < 4; b++) {
      for (let i = 0; i < 10; i++)
        await log.write({
          timestamp: new Date(base + b * 60_000 + i).toISOString(),
          message: `b${b}`,
        });
      await log.flush();
    }
    await log.close();
    const keys = (await listAll(store, prefix)).filter((k) => k.includes("/2026/11/28/12/"));
    expect(keys).toHaveLength(4);
    const maxes = keys.map((k) => Number(KEY_RE.exec(k)![8]));
    expect(maxes).toEqual([...maxes].sort((a, b) => b - a));
  });
});
