/**
 * SPEC §7 (§8 failures): a database error becomes a StowageError that says whether the
 * connection was lost (re-run) or the statement failed (check the query), and never the URL.
 */
import { describe, expect, it } from "vitest";
import { mysqlError } from "./mysql.js";
import { pgError } from "./postgres.js";

const socket = (code: string, message: string) => Object.assign(new Error(message), { code });

describe.each([
  ["PostgreSQL", pgError],
  ["MySQL", mysqlError],
] as const)("%s driver errors", (name, classify) => {
  it.each([
    ["EPIPE", "write EPIPE"],
    ["ECONNRESET", "read ECONNRESET"],
  ])(
    "a socket %s while reading rows is a lost connection, with the re-run hint",
    (code, message) => {
      const err = classify(socket(code, message), "reading rows");
      expect(err.code).toBe("source");
      expect(err.message).toBe(
        `the ${name} connection was lost while reading rows: ${message} (${code})`,
      );
      expect(err.hint).toContain("re-run the export");
    },
  );

  it("a statement error is not a lost connection", () => {
    const err = classify(socket("42P01", 'relation "x" does not exist'), "running the query");
    expect(err.message).toMatch(new RegExp(`^${name} failed while running the query`));
    expect(err.hint).toMatch(/check the query/);
  });
});
