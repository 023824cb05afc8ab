/**
 * Issue 31 §3: Studio's source context hides credentials written in any of the forms
 * real source files use, keeps every line (numbers stay right) and leaves ordinary
 * code as it is.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isStowageConfigFile, scrubSourceLines } from "./source-scrub.js";

const scrub = (src: string) => scrubSourceLines(src.split("\n")).join("\n");

describe("issue 31 §3 credential forms in source", () => {
  const cases: [name: string, src: string, expected: string][] = [
    ["object literal", `{ password: "p1" }`, `{ password: "[REDACTED]" }`],
    ["value on the next line", `password:\n  "p1",`, `password:\n  "[REDACTED]",`],
    ["tuple", `[["password", "p1"]]`, `[["password", "[REDACTED]"]]`],
    [
      "comment before the colon",
      `{ password /* old */ : "p1" }`,
      `{ password /* old */ : "[REDACTED]" }`,
    ],
    ["computed key", `{ ["password"]: "p1" }`, `{ ["password"]: "[REDACTED]" }`],
    ["subscript", `env["API_KEY"] = 'k1';`, `env["API_KEY"] = '[REDACTED]';`],
    ["in a string", `f("user=u&password=p1")`, `f("user=u&password=[REDACTED]")`],
    ["JSON in a string", `f('{"token":"t1"}')`, `f('{"token":"[REDACTED]"}')`],
    ["pass:", `{ user: "u", pass: "p1" }`, `{ user: "u", pass: "[REDACTED]" }`],
    ["?? default", `const password = env.P ?? "p1";`, `const password = env.P ?? "[REDACTED]";`],
    [
      "|| default over lines",
      `const secret =\n  env.S ||\n  "s1";`,
      `const secret =\n  env.S ||\n  "[REDACTED]";`,
    ],
    ["String.raw", "{ password: String.raw`p1` }", "{ password: String.raw`[REDACTED]` }"],
    ["set call", `h.set("x-functions-key", "k1")`, `h.set("x-functions-key", "[REDACTED]")`],
    ["PHP", `['password' => 'p1']`, `['password' => '[REDACTED]']`],
    ["Go", `password := "p1"`, `password := "[REDACTED]"`],
    [
      "Python default",
      `os.environ.get("PASSWORD", "p1")`,
      `os.environ.get("PASSWORD", "[REDACTED]")`,
    ],
    ["optional TS property", `{ token?: "t1" }`, `{ token?: "[REDACTED]" }`],
    ["comment", `// password: p1`, `// password: [REDACTED]`],
    [
      "multi-line template keeps its lines",
      "const password = `a\nb\nc`;\nnext();",
      "const password = `[REDACTED]\n\n`;\nnext();",
    ],
    [
      "PEM block in a template",
      "const k = `-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----`;",
      "const k = `[REDACTED]\n\n`;",
    ],
  ];
  it.each(cases)("issue 31 §3 %s", (_name, src, expected) => expect(scrub(src)).toBe(expected));

  it("issue 31 §3 ordinary code stays byte for byte", () => {
    const src = [
      "interface Creds { password?: string; token: string }",
      'const label = { text: "Password", type: "password" };',
      'const re = /["\']/g; const msg = "don\'t";',
      "const half = total / 2; const s = `${a}:${b}`;",
      'if (kind === "token") count += 1;',
      "const password = await readPassword();",
      'log.info("user logged in", { userId });',
      "# a Python comment, don't stop here",
    ].join("\n");
    expect(scrub(src)).toBe(src);
  });

  it("issue 31 §3 stowage config files are recognised by name", () => {
    expect(isStowageConfigFile("/r/stowage.config.ts")).toBe(true);
    expect(isStowageConfigFile("/r/src/config.ts")).toBe(false);
  });
});

describe("issue 31 §3 property: a planted credential is never shown, lines are kept", () => {
  const keyArb = fc.constantFrom(
    "password",
    "apiKey",
    "client_secret",
    "pass",
    "token",
    "PASSWORD",
  );
  const gap = fc.constantFrom(" ", "", "\n  ", " /* note */ ", "\t");
  const quote = fc.constantFrom('"', "'", "`");
  type Form = (k: string, v: string, g: string, q: string) => string;
  const formArb = fc.constantFrom<Form>(
    (k, v, g, q) => `const o = { ${k}${g}:${g}${q}${v}${q} };`,
    (k, v, g, q) => `const o = { [${q}${k}${q}]${g}:${g}${q}${v}${q} };`,
    (k, v, g, q) => `const ${k}${g}=${g}process.env.X${g}??${g}${q}${v}${q};`,
    (k, v, g, q) => `const m = new Map([[${q}${k}${q},${g}${q}${v}${q}]]);`,
    (k, v, g) => `const o = { ${k}:${g}String.raw\`${v}\` };`,
    (k, v, g, q) => `$a = [${q}${k}${q}${g}=>${g}${q}${v}${q}];`,
    (k, v, g, q) => `${k}${g}:=${g}${q}${v}${q}`,
    (k, v, _g, q) => `fetch(u, { body: ${q}a=1&${k}=${v}${q} });`,
  );
  const fillerArb = fc.array(
    fc.constantFrom(
      'const a = "ordinary";',
      "if (x) {",
      "}",
      "// comment",
      "const r = /a\\/b/g;",
      "const d = n / 2;",
      "",
    ),
    { maxLength: 6 },
  );
  it("issue 31 §3 any form, key spelling, spacing, quote and surroundings", () => {
    fc.assert(
      fc.property(
        keyArb,
        formArb,
        gap,
        quote,
        fc.stringMatching(/^[A-Za-z0-9]{8,16}$/).map((s) => `Zq9${s}`),
        fillerArb,
        fillerArb,
        (k, form, g, q, v, before, after) => {
          const lines = [...before, ...form(k, v, g, q).split("\n"), ...after];
          const out = scrubSourceLines(lines);
          expect(out).toHaveLength(lines.length);
          expect(out.join("\n")).not.toContain(v);
          expect(out.slice(0, before.length)).toEqual(before);
        },
      ),
      { numRuns: 1500 },
    );
  });
});
