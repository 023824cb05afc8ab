import { describe, expect, it } from "vitest";
import {
  civilFromDays,
  daysFromCivil,
  decimalToUnscaled,
  formatDate,
  formatTimestamp,
  parseDateText,
  parseTimestampText,
} from "./values.js";

describe("values", () => {
  it("§7.2 dates round-trip through day numbers, BC and far years included", () => {
    for (const d of [-719528, -1, 0, 1, 11016, 2932896])
      expect(daysFromCivil(...civilFromDays(d))).toBe(d);
    expect(parseDateText("1970-01-01")).toBe(0);
    expect(parseDateText("2000-02-29")).toBe(11016);
    expect(formatDate(parseDateText("0044-03-15 BC"))).toBe("-000043-03-15");
  });

  it("§7.2 timestamps keep microseconds and apply offsets", () => {
    expect(parseTimestampText("1970-01-01 00:00:00")).toBe(0n);
    expect(parseTimestampText("2024-02-29 23:59:59.123456+02")).toBe(
      parseTimestampText("2024-02-29 21:59:59.123456"),
    );
    expect(parseTimestampText("2024-01-01 00:00:00+05:30")).toBe(
      parseTimestampText("2023-12-31 18:30:00"),
    );
    expect(parseTimestampText("1969-12-31 23:59:59.999999")).toBe(-1n);
    expect(formatTimestamp(-1n, true)).toBe("1969-12-31T23:59:59.999999Z");
    expect(formatTimestamp(1_500_000n, false)).toBe("1970-01-01T00:00:01.500000");
    expect(() => parseTimestampText("infinity")).toThrow(/cannot be represented/);
  });

  it("§7.2 decimals convert to exact unscaled integers", () => {
    expect(decimalToUnscaled("-1234567890123456789012345.12345", 5)).toBe(
      -123456789012345678901234512345n,
    );
    expect(decimalToUnscaled("12.5", 2)).toBe(1250n);
    expect(decimalToUnscaled("0.00", 2)).toBe(0n);
    expect(decimalToUnscaled("1e-2", 2)).toBe(1n);
    expect(decimalToUnscaled("7", 0)).toBe(7n);
    expect(() => decimalToUnscaled("0.125", 2)).toThrow(/more than 2 fraction digits/);
    expect(() => decimalToUnscaled("NaN", 2)).toThrow(/cannot be represented/);
  });
});

describe("timestamp fast path", () => {
  it("§7.2 agrees with the general parser on every shape it accepts", () => {
    const cases = [
      "2024-02-29 23:59:59",
      "2024-02-29 23:59:59.1",
      "2024-02-29 23:59:59.123456",
      "2024-02-29 23:59:59.1234567",
      "1900-01-01 00:00:00+05:30",
      "2024-01-01 00:00:00-08",
      "0001-01-01 00:00:00",
      "9999-12-31 23:59:59.999999+00",
    ];
    for (const c of cases) {
      const viaRegex = parseTimestampText(c.replace(" ", "T")); // the 'T' form skips the fast path
      expect(parseTimestampText(c), c).toBe(viaRegex);
    }
    expect(parseTimestampText("2024-02-29 23:59:59.5 BC")).toBe(
      parseTimestampText("2024-02-29T23:59:59.5 BC"),
    );
    expect(() => parseTimestampText("2024-0x-29 23:59:59")).toThrow(/cannot be represented/);
  });
});
