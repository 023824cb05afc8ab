// type tests of the reader's public session results (SPEC §5.3),
// `stowage/reader` as a user imports it.
import { describe, expectTypeOf, it } from "vitest";
import {
  openSource,
  type LimitName,
  type LoadResult,
  type LogRecordLike,
  type ReaderSession,
  type ReadStats,
  type SkippedObject,
  type Source,
} from "../../src/reader.js";

describe("reader sessions (SPEC §5.3)", () => {
  it("openSource(…).query({from, to, filter?, limits?}) returns a session", () => {
    expectTypeOf(openSource).returns.toEqualTypeOf<Source>();
    expectTypeOf<Source["query"]>().toBeCallableWith({ from: "-1h", to: Date.now() });
    expectTypeOf<Source["query"]>().toBeCallableWith({
      from: new Date(0),
      to: new Date(),
      filter: (r: LogRecordLike) => r.level === "error",
      limits: { records: 1000 },
    });
    expectTypeOf<Source["query"]>().returns.toEqualTypeOf<ReaderSession>();
  });

  it("load() and more() resolve to {records, stats, partial, complete, skipped}", () => {
    expectTypeOf<ReaderSession["load"]>().returns.toEqualTypeOf<Promise<LoadResult>>();
    expectTypeOf<ReaderSession["more"]>().returns.toEqualTypeOf<Promise<LoadResult>>();
    expectTypeOf<LoadResult>()
      .pick<"records" | "stats" | "partial" | "complete" | "skipped">()
      .toEqualTypeOf<{
        records: LogRecordLike[];
        stats: ReadStats;
        partial: boolean;
        complete: boolean;
        skipped: SkippedObject[];
      }>();
    expectTypeOf<ReadStats["stoppedBy"]>().toEqualTypeOf<LimitName | null>();
    expectTypeOf<SkippedObject["key"]>().toBeString();
  });
});
