/**
 * Issue 32 §1 (every line exactly once, at its timestamp): `fastMs` reads a line's stamp from
 * its bytes, remembering the hour of the last canonical stamp. Whatever it remembered, its
 * answer must be the full parse's (`isoMs` of the stamp's text, NaN when that is not a time).
 */
import { describe, expect, it } from "vitest";
import { isoMs } from "./record-row.js";
import { fastMs } from "./sorted-rows.js";

const line = (stamp: string) => Buffer.from(`{"timestamp":"${stamp}","level":"info"}`, "utf8");
/** The answer without any cache: the stamp's text parsed whole (NaN for a non-ASCII stamp). */
const slow = (stamp: string) => (/[^\x00-\x7f]/.test(stamp) ? NaN : isoMs(stamp));
const read = (stamp: string) => {
  const b = line(stamp);
  return fastMs(b, 0, b.length);
};
/** `fastMs` of a line with `stamp` is the full parse's answer. */
const readsAsParsed = (stamp: string) => {
  const want = slow(stamp);
  if (Number.isNaN(want)) expect(read(stamp), stamp).toBeNaN();
  else expect(read(stamp), stamp).toBe(want);
};

const SAME_HOUR = [
  "2026-11-03T02:15:00.000Z",
  "2026-11-03T02:59:59.999Z",
  "2026-11-03T02:00:00.000Z",
  "2026-11-03T02:60:00.000Z", // minute out of range
  "2026-11-03T02:15:60.000Z", // second out of range
  "2026-11-03T02:1a:00.000Z",
  "2026-11-03T02:15:0a.000Z",
  "2026-11-03T02:15:00.0a0Z",
  "2026-11-03T02:15:00.000z",
  "2026-11-03T02:15:00,000Z",
  "2026-11-03T02-15:00.000Z",
  "2026-11-03T02:15:00.000+",
  "2026-11-03T02:15:00Z", // not canonical, still a time
  "2026-11-03T02:15:00.000+00:00",
  "2026-11-03T02:15:00.0000Z",
  "2026-11-03T02:15:0é.000Z", // non-ASCII
  "2026-11-03T02:-1:00.000Z",
];

describe("fastMs, the stamp read from a line's bytes", () => {
  it("gives the full parse's answer for every stamp of the remembered hour, valid or not", () => {
    for (const stamp of SAME_HOUR) {
      expect(read("2026-11-03T02:30:00.000Z")).toBe(Date.UTC(2026, 10, 3, 2, 30)); // remember 02h
      readsAsParsed(stamp);
    }
  });

  it("an hour that differs in any byte of its prefix is parsed whole, then remembered", () => {
    read("2026-11-03T02:30:00.000Z");
    for (const stamp of [
      "2026-11-03T03:15:00.000Z",
      "2026-11-04T02:15:00.000Z",
      "2026-12-03T02:15:00.000Z",
      "2027-11-03T02:15:00.000Z",
      "2026-11-03T24:15:00.000Z", // no hour 24
      "2026-02-30T02:15:00.000Z", // no such day
      "1969-12-31T23:15:00.000Z",
      "2026-11-03T02:15:00.000Z",
    ]) {
      readsAsParsed(stamp);
      // …and the next line of that hour (or of the last valid one) still reads right
      readsAsParsed(`${stamp.slice(0, 13)}:01:02.003Z`);
    }
  });

  it("a line not written as Stowage writes it is NaN (it is parsed to be placed)", () => {
    read("2026-11-03T02:30:00.000Z");
    for (const text of [
      '{"level":"info","timestamp":"2026-11-03T02:15:00.000Z"}',
      '{ "timestamp":"2026-11-03T02:15:00.000Z"}',
      '{"timestamp":"2026-11-03T02:15:00.000Z',
      '{"timestamp":',
    ]) {
      const b = Buffer.from(text);
      expect(fastMs(b, 0, b.length), text).toBeNaN();
    }
  });
});
