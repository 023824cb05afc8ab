import { describe, expect, it } from "vitest";
import { ulid, randomHex } from "../shared/ids.js";
import {
  formatObjectKey,
  hourPrefix,
  MAX_EPOCH_MS,
  META,
  normalizePrefix,
  objectMetadata,
  parseObjectKey,
  utcHourStart,
} from "./object-key.js";

const H10 = Date.UTC(2026, 2, 1, 10);

describe("v1 object keys", () => {
  it("§3.4 key layout: prefix/v1/YYYY/MM/DD/HH/reverse-min-max-id.ndjson.gz with 13-digit fields", () => {
    const id = "01JD3Z6Q8W5F7M2N4P6R8T0V2X";
    const key = formatObjectKey({
      prefix: "logs/app",
      minMs: H10 + 5,
      maxMs: H10 + 3_599_999,
      batchId: id,
    });
    const max = H10 + 3_599_999;
    expect(key).toBe(
      `logs/app/v1/2026/03/01/10/${String(MAX_EPOCH_MS - max).padStart(13, "0")}-${H10 + 5}-${max}-${id}.ndjson.gz`,
    );
    expect(formatObjectKey({ prefix: "", minMs: 0, maxMs: 1, batchId: id })).toBe(
      `v1/1970/01/01/00/9999999999998-0000000000000-0000000000001-${id}.ndjson.gz`,
    );
  });

  it("§3.4 format/parse round trip, for ULID and 32-hex batch ids and several prefixes", () => {
    for (const prefix of ["", "logs", "a/b/c"]) {
      for (const batchId of [ulid(), randomHex(32)]) {
        const parts = { minMs: H10 + 1000, maxMs: H10 + 2000, batchId };
        const key = formatObjectKey({ prefix, ...parts });
        expect(parseObjectKey(key, prefix)).toEqual({ hourMs: H10, ...parts });
        expect(parseObjectKey(key, `/${prefix}/`)).toEqual({ hourMs: H10, ...parts });
      }
    }
  });

  it("§3.4 reverse-max-ms: within an hour, newer max sorts first lexicographically", () => {
    const keys = [0, 1, 9, 10, 999, 59_000, 3_599_999].map((off) =>
      formatObjectKey({ prefix: "p", minMs: H10, maxMs: H10 + off, batchId: ulid() }),
    );
    const sorted = [...keys].sort();
    expect(sorted).toEqual([...keys].reverse());
    const maxes = sorted.map((k) => parseObjectKey(k, "p")!.maxMs);
    expect(maxes).toEqual([...maxes].sort((a, b) => b - a));
  });

  it("§3.4 parse returns null for anything that is not a consistent v1 key", () => {
    const id = ulid();
    const good = formatObjectKey({ prefix: "p", minMs: H10, maxMs: H10 + 1, batchId: id });
    const bad = [
      good.replace("p/", "q/"), // other prefix
      `px/${good.slice(2)}`, // prefix that only starts the same
      good.replace("/v1/", "/v2/"),
      good.replace(".ndjson.gz", ".json.gz"),
      good.replace(id, id.toLowerCase()),
      good.replace(
        /\/(\d{13})-/,
        (_m, r: string) => `/${String(Number(r) - 1).padStart(13, "0")}-`,
      ), // reverse ≠ max
      formatObjectKey({ prefix: "p", minMs: H10, maxMs: H10 + 1, batchId: id }).replace(
        "/10/",
        "/11/",
      ), // outside folder
      good.replace("/03/", "/13/"), // month 13
      `${good}.tmp`,
      "p/v1/2026/03/01/10/",
      "p/README.txt",
    ];
    for (const k of bad) expect(parseObjectKey(k, "p"), k).toBeNull();
    expect(parseObjectKey(good, "p")).not.toBeNull();
  });

  it("§3.4 formatObjectKey rejects batches spanning two hours, bad ids and out-of-range times", () => {
    const batchId = ulid();
    expect(() => formatObjectKey({ prefix: "", minMs: H10 - 1, maxMs: H10, batchId })).toThrow(
      /different UTC hours/,
    );
    expect(() => formatObjectKey({ prefix: "", minMs: H10, maxMs: H10, batchId: "nope" })).toThrow(
      /batch id/,
    );
    expect(() => formatObjectKey({ prefix: "", minMs: -1, maxMs: 0, batchId })).toThrow(/min-ms/);
    expect(() => formatObjectKey({ prefix: "", minMs: 2, maxMs: 1, batchId })).toThrow(/after/);
  });

  it("§3.4/§5.2 hour prefixes and prefix normalisation", () => {
    expect(hourPrefix("logs", H10 + 1234)).toBe("logs/v1/2026/03/01/10/");
    expect(hourPrefix("", H10)).toBe("v1/2026/03/01/10/");
    expect(normalizePrefix("/a//b/")).toBe("a/b");
    expect(normalizePrefix("/")).toBe("");
    expect(utcHourStart(H10 + 3_599_999)).toBe(H10);
    expect(utcHourStart(H10 + 3_600_000)).toBe(H10 + 3_600_000);
  });

  it("§3.4 object metadata names and values", () => {
    expect(objectMetadata({ minMs: 1, maxMs: 2, records: 3, decodedBytes: 4 })).toEqual({
      [META.format]: "1",
      "min-ms": "1",
      "max-ms": "2",
      records: "3",
      "decoded-bytes": "4",
    });
    expect(META.format).toBe("stowage-format");
  });
});
