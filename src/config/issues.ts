/**
 * Turns zod issues into one config error that names the path as the user wrote
 * it, the expected type, and for unknown keys the closest valid key. Values are
 * never quoted back (a mistyped field may hold a secret).
 */
import type { z } from "zod";
import { StowageError } from "../shared/errors.js";
import {
  closestKey,
  displayPath,
  inUserStyle,
  pathId,
  type ConfigPath,
  type KeyOrigins,
} from "./keys.js";

type Issue = z.core.$ZodIssue;

/** Valid keys of the object that raised each `unrecognized_keys` issue (filled by the error map). */
const validKeysOf = new WeakMap<object, string[]>();

/**
 * Parse-time error map: remembers the valid keys next to each unknown-key issue
 * (zod copies the `keys` array reference into the final issue).
 */
export const configErrorMap: z.core.$ZodErrorMap = (iss) => {
  if (iss.code === "unrecognized_keys") {
    const shape = (iss.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)
      ?._zod?.def?.shape;
    if (shape) validKeysOf.set(iss.keys, Object.keys(shape));
  }
  return undefined;
};

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (v instanceof RegExp) return "a RegExp";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return "a string";
  if (typeof v === "number") return "a number";
  if (typeof v === "boolean") return "a boolean";
  return typeof v;
}

const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean (true or false)",
  object: "a mapping",
  array: "a list",
  function: "a function",
};

const quote = (v: unknown) => (typeof v === "string" ? `"${v}"` : String(v));

/** A failed union: a bad discriminator, a value none of the options take, or the errors of the branch that fits. */
function describeUnion(
  iss: Issue & { code: "invalid_union" },
  path: ConfigPath,
  origins: KeyOrigins,
  where: string,
  at: string,
): string[] {
  const options = "options" in iss ? iss.options : undefined;
  if (iss.discriminator && options) {
    const value = (iss.input as Record<string, unknown> | undefined)?.[iss.discriminator];
    const near = typeof value === "string" ? closestKey(value, options.map(String)) : undefined;
    const name =
      iss.path.length && iss.path[iss.path.length - 1] === iss.discriminator
        ? at
        : `${at}.${iss.discriminator}`;
    return [
      `\`${name}\` must be one of ${options.map(quote).join(", ")}${near ? `; did you mean "${near}"?` : ""}`,
    ];
  }
  if (iss.errors.length === 0) return [`\`${at}\` matches more than one form; ${iss.message}`];
  const rootLevel = (errs: Issue[]) =>
    errs.filter((e) => e.path.length === 0 && e.code !== "unrecognized_keys");
  // Report the branch that accepted the value's type: its complaints are about the inside.
  const fitting = iss.errors.find((errs) => errs.length > 0 && rootLevel(errs).length === 0);
  if (fitting) return fitting.flatMap((e) => describe(e, path, origins, where));
  const accepted = iss.errors.flatMap((errs) =>
    rootLevel(errs).map((e) =>
      e.code === "invalid_value"
        ? e.values.map(quote).join(", ")
        : e.code === "invalid_type"
          ? (EXPECTED[e.expected] ?? e.expected)
          : "",
    ),
  );
  return [`\`${at}\` must be ${accepted.filter(Boolean).join(", or ") || "of another form"}`];
}

/** One line per problem, path first. */
function describe(iss: Issue, base: ConfigPath, origins: KeyOrigins, where: string): string[] {
  const path = [...base, ...(iss.path as (string | number)[])];
  const at = path.length || where ? displayPath(path, origins, where) : "the config";
  const input: unknown = (iss as { input?: unknown }).input;
  if (typeof input === "number" && !Number.isFinite(input)) {
    const yaml = Number.isNaN(input) ? ".nan" : input > 0 ? ".inf" : "-.inf";
    return [
      `\`${at}\` is ${yaml} (YAML for ${Number.isNaN(input) ? "not-a-number" : "infinity"}), which is no usable value; write a finite number`,
    ];
  }
  switch (iss.code) {
    case "unrecognized_keys": {
      const valid = validKeysOf.get(iss.keys) ?? [];
      return iss.keys.map((key) => {
        const userKey = origins.get(pathId([...path, key])) ?? key;
        const near = closestKey(key, valid);
        const hint = near
          ? `; did you mean \`${inUserStyle(near, userKey)}\`?`
          : valid.length
            ? `; valid keys: ${valid.map((k) => inUserStyle(k, userKey)).join(", ")}`
            : "";
        return `unknown key \`${userKey}\` ${path.length || where ? `in ${at}` : "at the top level"}${hint}`;
      });
    }
    case "invalid_type":
      if (iss.input === undefined) {
        const parent = displayPath(path.slice(0, -1), origins, where);
        return [`missing required key \`${String(path[path.length - 1])}\` in ${parent}`];
      }
      return [
        `\`${at}\` must be ${EXPECTED[iss.expected] ?? iss.expected}, not ${typeName(iss.input)}`,
      ];
    case "invalid_value": {
      const options = iss.values
        .map((v) => (typeof v === "string" ? `"${v}"` : String(v)))
        .join(", ");
      const near =
        typeof iss.input === "string" ? closestKey(iss.input, iss.values.map(String)) : undefined;
      return [`\`${at}\` must be one of ${options}${near ? `; did you mean "${near}"?` : ""}`];
    }
    case "invalid_union":
      return describeUnion(iss, path, origins, where, at);
    case "too_small":
      if (iss.origin === "string") return [`\`${at}\` must not be empty`];
      return [
        `\`${at}\` must be ${iss.inclusive === false ? "greater than" : "at least"} ${String(iss.minimum)}`,
      ];
    case "too_big":
      return [
        `\`${at}\` must be ${iss.inclusive === false ? "less than" : "at most"} ${String(iss.maximum)}`,
      ];
    default:
      return [`\`${at}\` ${iss.message}`];
  }
}

/**
 * Builds the config error for failed validation.
 * @example throw configIssuesError(result.error.issues, { where: "s3", file: "stowage.config.yaml", origins })
 */
export function configIssuesError(
  issues: readonly Issue[],
  ctx: { origins: KeyOrigins; where?: string; file?: string | undefined; base?: ConfigPath },
): StowageError {
  const lines = [
    ...new Set(
      issues.flatMap((iss) => describe(iss, ctx.base ?? [], ctx.origins, ctx.where ?? "")),
    ),
  ];
  const head = ctx.file ? `${ctx.file}: ` : "";
  const message =
    lines.length === 1
      ? `${head}${lines[0]}`
      : `${head}invalid configuration:\n  - ${lines.join("\n  - ")}`;
  return new StowageError("config", message, {
    hint: "fix the config file; keys and their meaning: docs/configuration.md",
  });
}
