import { describe, expect, it } from "vitest";
import {
  civilFromDays,
  daysFromCivil,
  decimalToUnscaled,
  formatDate,
  formatTimestamp,
  parseDateText,
  parseTimestampMicros,
  parseTimestampText,
  safeInteger,
  timestampTextToIso,
  dateTextToIso,
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

  it("§7.2 decimals: the plain-shape fast path agrees with exact string arithmetic", () => {
    const cases = [
      "-0.00",
      "0",
      ".5",
      "5.",
      "-12.3",
      "9007199254740991",
      "90071992547409.93",
      "-",
      ".",
    ];
    for (let k = 0; k < 5000; k++) {
      const int = String(Math.floor(Math.random() * 10 ** (k % 17)));
      const frac = String(Math.floor(Math.random() * 10 ** (k % 7))).padStart(k % 7, "0");
      cases.push(`${k % 2 ? "-" : ""}${int}${frac ? "." + frac : ""}`);
    }
    for (const t of cases) {
      for (const scale of [0, 2, 6, 10]) {
        const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(t)!;
        const fracDigits = m[3] ?? "";
        let expected: bigint | string;
        if (m[2] === "" && fracDigits === "") expected = "error";
        else if (fracDigits.replace(/0+$/, "").length > scale) expected = "error";
        else {
          const digits = m[2]! + fracDigits.padEnd(scale, "0").slice(0, scale);
          expected = BigInt(digits || "0") * (m[1] ? -1n : 1n);
        }
        let actual: bigint | string;
        try {
          actual = decimalToUnscaled(t, scale);
        } catch {
          actual = "error";
        }
        expect([t, scale, actual]).toEqual([t, scale, expected]);
      }
    }
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
    expect(() => parseTimestampText("2024-01x29 23:59:59")).toThrow(/cannot be represented/);
    expect(() => parseTimestampText("2024-01-29 23:59:59+0x")).toThrow(/cannot be represented/);
    expect(() => parseTimestampText("2024-01-29 23:59:59+05x30")).toThrow(/cannot be represented/);
  });

  it("§7.2 the fast path agrees with the general parser on random timestamps, month after month", () => {
    // Runs of values in one month and jumps between months, years 1–9999, fractions of
    // 0–7 digits and offsets: the fast path keeps the last month's day number.
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pad = (v: number, w: number) => String(v).padStart(w, "0");
    for (let k = 0; k < 4000; k++) {
      const year = k % 50 < 40 ? 2024 : 1 + rand(9999);
      const month = k % 50 < 40 ? 1 + (Math.floor(k / 200) % 12) : 1 + rand(12);
      const fracDigits = rand(8);
      const frac = fracDigits ? "." + pad(rand(10 ** Math.min(fracDigits, 7)), fracDigits) : "";
      const off = ["", "+00", "-08", "+05:30", "-03:45"][rand(5)]!;
      const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(1 + rand(28), 2)} ${pad(rand(24), 2)}:${pad(rand(60), 2)}:${pad(rand(60), 2)}${frac}${off}`;
      const viaRegex = parseTimestampText(text.replace(" ", "T"));
      expect(parseTimestampText(text), text).toBe(viaRegex);
      expect(parseTimestampMicros(text), text).toBe(safeInteger(viaRegex)); // a bigint past 2^53 µs
    }
  });

  it("§7.2 text values: database text → export text is exactly format(parse(text))", () => {
    const stamps = [
      "2024-02-29 23:59:59",
      "2024-02-29 23:59:59.1",
      "2024-02-29 23:59:59.000000",
      "2024-02-29 23:59:59.000100",
      "2024-02-29 23:59:59.123456",
      "2024-02-29 23:59:59.1234567",
      "2024-02-29 23:59:59.",
      "2023-02-29 23:59:59",
      "1900-02-29 00:00:00",
      "2000-02-29 00:00:00+00",
      "2024-04-31 00:00:00",
      "2024-13-01 00:00:00",
      "2024-01-00 00:00:00",
      "2024-01-01 24:00:00",
      "2024-01-01 23:60:00",
      "2024-01-01 23:59:60",
      "1900-01-01 00:00:00+05:30",
      "2024-01-01 00:00:00-08",
      "2024-01-01 00:00:00+00",
      "2024-01-01 00:00:00.5+00:00",
      "2024-01-01 00:00:00+00:00:00",
      "0001-01-01 00:00:00",
      "0000-01-01 00:00:00",
      "9999-12-31 23:59:59.999999+00",
      "12345-01-01 00:00:00",
      "2024-02-29 23:59:59.5 BC",
      "2024-02-29T23:59:59",
    ];
    // Every instant of a few random days, with and without fractions and a UTC offset.
    for (let i = 0; i < 2000; i++) {
      const micros = BigInt(Math.floor((Math.random() - 0.3) * 2 ** 52)) * 7n;
      const iso = formatTimestamp(micros, false).replace("T", " ");
      stamps.push(iso, `${iso}+00`, iso.replace(/\.\d+$/, ""));
    }
    /** The result, or the error message when it throws (both sides must agree on either). */
    const outcome = (f: () => string) => {
      try {
        return f();
      } catch (e) {
        return `throws ${(e as Error).message}`;
      }
    };
    for (const t of stamps)
      for (const utc of [false, true])
        expect(
          outcome(() => timestampTextToIso(t, utc)),
          t,
        ).toBe(outcome(() => formatTimestamp(parseTimestampText(t), utc)));
    const dates = ["2024-02-29", "2023-02-29", "2000-02-29", "1900-02-29", "2024-04-31"];
    dates.push("0001-01-01", "0000-06-01", "9999-12-31", "12345-01-01", "0044-03-15 BC");
    for (let d = -800_000; d < 3_000_000; d += 997) dates.push(formatDate(d));
    for (const t of dates)
      expect(
        outcome(() => dateTextToIso(t)),
        t,
      ).toBe(outcome(() => formatDate(parseDateText(t))));
    expect(() => timestampTextToIso("infinity", true)).toThrow(/cannot be represented/);
    expect(() => dateTextToIso("-infinity")).toThrow(/cannot be represented/);
  });
});
