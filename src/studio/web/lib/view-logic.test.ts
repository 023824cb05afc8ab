/** The UI's pure logic: search language, facet counts, error groups, HTTP stats, AI context, URL state. */
import { describe, expect, it } from "vitest";
import type { LogRecordLike } from "../../api-types.js";
import { compileTerms, parseQuery, termToString } from "./search.js";
import { deriveView } from "./facets.js";
import { groupErrors } from "./error-groups.js";
import { httpStats, normaliseRoute } from "./http-stats.js";
import { buildAiContext } from "./ai-context.js";
import { readUrlState, writeUrlState } from "./url-state.js";
import { toRows } from "./rows.js";
import { meterItems, stoppedWords } from "./budget.js";

const T0 = Date.UTC(2025, 5, 12, 10, 0, 0);
const rec = (i: number, over: Partial<LogRecordLike> = {}): LogRecordLike => ({
  timestamp: new Date(T0 + i * 1000).toISOString(),
  level: "info",
  message: `request ${i} handled`,
  service: i % 2 ? "api" : "worker",
  data: {
    seq: i,
    status: i % 5 === 0 ? 500 : 200,
    method: "GET",
    path: `/orders/${i}`,
    durationMs: i * 10,
  },
  ...over,
});
const rows = (records: LogRecordLike[]) => toRows(records, 0, new Map());

describe("search language (§5.4 search)", () => {
  const data = rows([
    rec(1, { message: "payment provider timeout", level: "error" }),
    rec(2, { message: "order created" }),
    rec(3, { level: "warning", message: "slow query" }),
    rec(4, { data: { user: { id: "u_9" }, status: 404 } }),
  ]);
  const match = (q: string) =>
    data
      .filter(compileTerms(parseQuery(q)))
      .map((r) => (r.rec.data as { seq?: number }).seq ?? r.id);

  it("§5.4 plain text and quoted phrases match message and values, not keys", () => {
    expect(match("timeout")).toEqual([1]);
    expect(match('"provider timeout"')).toEqual([1]);
    expect(match('"timeout provider"')).toEqual([]);
    expect(match("durationMs")).toEqual([]);
    expect(match("u_9")).toHaveLength(1);
  });

  it("§5.4 field:value, -field:value, level comparisons, numbers, wildcards, has:", () => {
    expect(match("level:error")).toEqual([1]);
    expect(match("level:warn")).toEqual([3]);
    expect(match("level:>=warning")).toEqual([1, 3]);
    expect(match("-level:info")).toEqual([1, 3]);
    expect(match("service:api")).toEqual([1, 3]);
    expect(match("status:>=400")).toHaveLength(1);
    expect(match("data.path:/orders/*")).toEqual([1, 2, 3]);
    expect(match("user.id:u_9")).toHaveLength(1);
    expect(match("has:data.user")).toHaveLength(1);
    expect(match("service:api service:worker")).toHaveLength(4);
  });

  it("round-trips terms through their text form", () => {
    for (const q of ["-service:api", 'message:"a b"', '"quoted \\" phrase"', "level:>=error"]) {
      expect(parseQuery(parseQuery(q).map(termToString).join(" "))).toEqual(parseQuery(q));
    }
  });
});

describe("facets and view (§5.4 facets)", () => {
  const data = rows(
    Array.from({ length: 10 }, (_, i) =>
      rec(i, { level: i < 3 ? "error" : "info", data: { k: i % 2 ? "odd" : "even" } }),
    ),
  );

  it("§5.4 counts a dimension without its own chips, and narrows the list with all of them", () => {
    const { visible, facets } = deriveView({
      rows: data,
      search: [],
      chips: [{ field: "level", value: "error", negate: false }],
      window: null,
    });
    expect(visible).toHaveLength(3);
    expect(facets.level).toEqual([
      { value: "info", count: 7 },
      { value: "error", count: 3 },
    ]);
    expect(facets.service.reduce((s, v) => s + v.count, 0)).toBe(3);
    const k = facets.dataKeys.find((d) => d.key === "k")!;
    expect(k.values).toEqual([
      { value: "even", count: 2 },
      { value: "odd", count: 1 },
    ]);
  });

  it("§5.4 an excluded value and a time window narrow the view", () => {
    const { visible } = deriveView({
      rows: data,
      search: [],
      chips: [{ field: "data.k", value: "odd", negate: true }],
      window: { from: T0, to: T0 + 5000 },
    });
    expect(visible.map((r) => (r.rec.data as { k: string }).k)).toEqual(["even", "even", "even"]);
  });
});

describe("error groups (§5.4 fingerprint)", () => {
  it("§5.4 groups by error name + first message line (variable parts masked) + caller", () => {
    const err = (i: number, caller: string, msg = `order ${i} missing\nmore detail`) =>
      rec(i, { level: "error", caller, error: { name: "TypeError", message: msg } });
    const g = groupErrors(
      rows([
        err(1, "a.ts:1"),
        err(2, "a.ts:1"),
        err(3, "b.ts:9"),
        rec(4),
        err(5, "a.ts:1", "other"),
      ]),
      { from: T0, to: T0 + 10_000, buckets: 10 },
    );
    expect(g.map((x) => [x.count, x.caller, x.message])).toEqual([
      [2, "a.ts:1", "order <n> missing"],
      [1, "a.ts:1", "other"],
      [1, "b.ts:9", "order <n> missing"],
    ]);
    expect(g[0]!.firstSeen).toBe(T0 + 1000);
    expect(g[0]!.lastSeen).toBe(T0 + 2000);
    expect(g[0]!.buckets.reduce((a, b) => a + b, 0)).toBe(2);
  });
});

describe("HTTP view", () => {
  it("summarises status classes and per-route percentiles, slowest first", () => {
    const s = httpStats(rows(Array.from({ length: 20 }, (_, i) => rec(i))));
    expect(s.total).toBe(20);
    expect(s.byClass.find((c) => c.cls === "5xx")!.count).toBe(4);
    expect(s.routes[0]).toMatchObject({
      route: "GET /orders/:id",
      count: 20,
      errors5xx: 4,
      p50: 90,
      p95: 180,
      max: 190,
    });
    expect(normaliseRoute("/users/01J0ABCDEFGHJKMNPQRSTVWXYZ/x?q=1")).toBe("/users/:id/x");
  });

  it("a route field that already carries the method is shown once (not GET GET /orders)", () => {
    const s = httpStats(
      rows([
        rec(1, { data: { method: "GET", route: "GET /orders", status: 200, durationMs: 5 } }),
        rec(2, { data: { method: "get", route: "get /orders/7", status: 200, durationMs: 9 } }),
        rec(3, { data: { method: "POST", route: "/orders", status: 201, durationMs: 7 } }),
      ]),
    );
    expect(s.routes.map((r) => r.route).sort()).toEqual([
      "GET /orders",
      "GET /orders/:id",
      "POST /orders",
    ]);
  });
});

describe("AI context (§5.4)", () => {
  it("§5.4 is a compact block with source, range, filters, counts, the partial warning, groups and records as stored", () => {
    const data = rows([
      rec(1, { level: "error", error: { name: "E", message: "boom" }, caller: "a.ts:3" }),
      rec(2),
    ]);
    const limits = {
      downloadBytes: 16 << 20,
      listAttempts: 20,
      getAttempts: 64,
      records: 20_000,
      decodedBytes: 25 << 20,
      maxGrants: 5,
    };
    const text = buildAiContext({
      source: "s3://logs/app",
      from: T0,
      to: T0 + 3_600_000,
      window: null,
      search: "boom",
      chips: ["level:error"],
      loaded: 2,
      stats: null,
      partial: true,
      stoppedBy: "records",
      limits,
      visible: data,
      selected: null,
      groups: groupErrors(data, { from: T0, to: T0 + 3_600_000 }),
    });
    expect(text).toContain("source: s3://logs/app");
    expect(text).toContain(
      "range: 2025-06-12T10:00:00.000Z → 2025-06-12T11:00:00.000Z (60 min, UTC)",
    );
    expect(text).toContain("filters: level:error · search: boom");
    expect(text).toContain("WARNING: partial load (stopped at the 20,000-record allowance)");
    expect(text).toContain("- 1× E: boom @ a.ts:3");
    expect(text).toContain(JSON.stringify(data[0]!.rec));
  });
});

describe("budget words (§5.2 counters)", () => {
  it("§5.2 names the allowance that stopped a grant and shows per-grant usage", () => {
    const limits = {
      downloadBytes: 16 << 20,
      listAttempts: 20,
      getAttempts: 64,
      records: 20_000,
      decodedBytes: 25 << 20,
      maxGrants: 5,
    };
    expect(stoppedWords("records", limits)).toBe("stopped at the 20,000-record allowance");
    expect(stoppedWords("downloadBytes", limits)).toBe("stopped at the 16 MiB download allowance");
    const items = meterItems(
      {
        listRequests: 12,
        getRequests: 40,
        downloadedBytes: 8.1 * 1024 * 1024,
        decodedBytes: 0,
        records: 14_200,
      },
      null,
      limits,
    );
    expect(items.map((i) => i.label).join(" · ")).toBe(
      "LIST 12/20 · GET 40/64 · 8.1/16 MiB downloaded · 14,200/20,000 records · grant 0/5",
    );
  });
});

describe("URL state (§5.4 shareable URL)", () => {
  it("§5.4 keeps range, filters, tab, zoom and selection", () => {
    const s = readUrlState(
      "?range=6h&q=timeout&f=level%3Aerror&f=-service%3Aapi&tab=errors&sel=abc&view=2025-06-12T10:00:00.000Z~2025-06-12T10:30:00.000Z",
    );
    expect(s).toMatchObject({ preset: "6h", q: "timeout", tab: "errors", sel: "abc", utc: true });
    expect(s.chips.map(termToString)).toEqual(["level:error", "-service:api"]);
    expect(readUrlState(writeUrlState(s, "t0k"))).toEqual(s);
    expect(writeUrlState(s, "t0k")).toContain("token=t0k");
    const custom = readUrlState("?from=2025-06-12T10:00:00.000Z&to=2025-06-12T12:00:00.000Z");
    expect(custom).toMatchObject({ preset: null, from: T0, to: T0 + 7_200_000 });
  });
});
