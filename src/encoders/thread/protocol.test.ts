import { describe, expect, it } from "vitest";
import { packRows, unpackRows } from "./protocol.js";

describe("encoding thread wire form", () => {
  it("§7.2 rows survive packing and a structured clone exactly, NULLs and odd values included", () => {
    const rows: unknown[][] = [
      [1n, 1.5, true, 'a,"b"\r\n', new Uint8Array([1, 2]), "2024-01-01T00:00:00Z", 2n ** 64n - 1n],
      [null, -0, false, "", null, null, 3n],
      [
        -(2n ** 63n),
        Number.NaN,
        null,
        "\ud800 lone surrogate, ü, 😀",
        new Uint8Array(0),
        "x",
        null,
      ],
      [2n ** 63n - 1n, Infinity, true, null, new Uint8Array([255]), undefined, 5n],
    ];
    const { cols, transfer } = packRows(rows, 7);
    expect(cols.map((c) => c.k)).toEqual(["i64", "f64", "bool", "str", "any", "str", "any"]);
    const back = unpackRows(structuredClone(cols, { transfer }), rows.length);
    const expected = rows.map((r) => r.map((v) => v ?? null));
    expect(back).toEqual(expected);
    expect(Object.is(back[1]![1], -0)).toBe(true);
  });

  it("§7.2 a column of mixed types or huge strings travels value by value", () => {
    const huge = "x".repeat((1 << 24) + 1);
    const rows = [
      [1n, huge],
      ["2", "y"],
    ];
    const { cols } = packRows(rows, 2);
    expect(cols.map((c) => c.k)).toEqual(["any", "any"]);
    expect(unpackRows(cols, 2)).toEqual(rows);
  });
});
