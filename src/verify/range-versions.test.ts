import { describe, expect, it } from "vitest";
import type { VersionEntry, VersionsPage } from "../store/object-store.js";
import { protectedUntilMs, versionProblems } from "./object-checks.js";
import { rangeListing, rangeVersions } from "./range-versions.js";

const H = 3_600_000;
const at = (iso: string) => new Date(iso);
const v = (key: string, o: Partial<VersionEntry> = {}): VersionEntry => ({
  key,
  versionId: "v1",
  isLatest: true,
  deleteMarker: false,
  size: 10,
  lastModified: at("2026-11-05T10:00:00Z"),
  ...o,
});

describe("issue 31 §2: one versions walk over a verify range", () => {
  it("lists from just before the first hour folder to the end of the last, under the folder both share", () => {
    expect(rangeListing("app", Date.UTC(2026, 10, 1), Date.UTC(2026, 10, 30, 23, 59))).toEqual({
      prefix: "app/v1/2026/11/",
      startAfter: "app/v1/2026/11/01/00",
      endBefore: "app/v1/2026/11/30/230",
    });
    expect(rangeListing("", Date.UTC(2026, 11, 31, 22, 5), Date.UTC(2027, 0, 1, 1))).toEqual({
      prefix: "v1/",
      startAfter: "v1/2026/12/31/22",
      endBefore: "v1/2027/01/01/010",
    });
    const one = rangeListing("a/b", Date.UTC(2026, 0, 2, 3, 4), Date.UTC(2026, 0, 2, 3, 59));
    expect(one.prefix).toBe("a/b/v1/2026/01/02/03/");
    // Every key of an hour folder in the range sorts between the two bounds; the next hour's does not.
    expect(
      "a/b/v1/2026/01/02/03/x" > one.startAfter && "a/b/v1/2026/01/02/03/x" < one.endBefore,
    ).toBe(true);
    expect("a/b/v1/2026/01/02/04/x" < one.endBefore).toBe(false);
  });

  it("groups each key's versions across pages and stops at the first key past the range", async () => {
    const pages: VersionsPage[] = [
      { versions: [v("p/a"), v("p/b", { versionId: "2" })], nextContinuationToken: "t1" },
      {
        versions: [v("p/b", { versionId: "1", isLatest: false }), v("p/c"), v("p/z")],
        nextContinuationToken: "t2",
      },
      { versions: [v("p/zz")] },
    ];
    const asked: unknown[] = [];
    const seen = [];
    for await (const k of rangeVersions(async (o) => (asked.push(o), pages[asked.length - 1]!), {
      prefix: "p/",
      startAfter: "p/",
      endBefore: "p/y",
    }))
      seen.push([k.key, k.versions.map((x) => x.versionId)]);
    expect(seen).toEqual([
      ["p/a", ["v1"]],
      ["p/b", ["2", "1"]],
      ["p/c", ["v1"]],
    ]);
    expect(asked).toEqual([
      { prefix: "p/", startAfter: "p/" },
      { prefix: "p/", continuationToken: "t1" },
    ]);
  });

  it("a second version is an overwrite; a delete marker is a deletion only while the object must be kept", () => {
    const parts = { hourMs: Date.UTC(2026, 10, 5, 10), minMs: 0, maxMs: 0, batchId: "x" };
    const lock = { mode: "GOVERNANCE" as const, retainDays: 30 };
    expect(versionProblems([v("k")], Infinity)).toEqual({ current: true, problems: [] });
    const forged = versionProblems(
      [v("k", { versionId: "new" }), v("k", { versionId: "old", isLatest: false })],
      Infinity,
    );
    expect(forged.current).toBe(true);
    expect(forged.problems[0]).toMatch(/^2 versions: .* current version new .* replaces old/);
    const marker = v("k", {
      versionId: "m",
      deleteMarker: true,
      lastModified: at("2026-11-06T00:00:00Z"),
    });
    const hidden = v("k", { isLatest: false });
    const during = protectedUntilMs(parts, lock, undefined);
    expect(during).toBe(parts.hourMs + 30 * 24 * H);
    expect(versionProblems([marker, hidden], during)).toEqual({
      current: false,
      problems: [
        expect.stringMatching(
          /^deleted: a delete marker \(2026-11-06T00:00:00\.000Z\) hides 1 version /,
        ),
      ],
    });
    // Expired by a lifecycle rule after its retention: not a finding.
    const after = v("k", { ...marker, lastModified: new Date(during + H) });
    expect(versionProblems([after, hidden], during)).toEqual({ current: false, problems: [] });
    expect(protectedUntilMs(parts, undefined, 400)).toBe(parts.hourMs + 400 * 24 * H);
    expect(protectedUntilMs(parts, undefined, undefined)).toBe(Infinity);
  });
});
