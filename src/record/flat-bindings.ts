/**
 * A child logger's bindings in the common case — a plain object with a few own data
 * properties holding strings, numbers, booleans or null (`{ requestId }` of the
 * request-logging adapters) — written without the full object walk, byte for byte as
 * the walk writes them (§3.3 redaction included). What the walk decides per key (its
 * `"key":` text, whether the key table or a custom path redacts it) depends on the key
 * name alone and is cached per redaction plan; each value goes through the walk's own
 * leaf writer (write-json.ts `writeJson`: caps, surrogate repair, pattern redaction).
 * Anything else (nested values, accessors, proxies, keys the walk reorders, many keys)
 * returns null: the caller takes the full walk, which no read here has disturbed (no
 * getter or trap runs before null is returned).
 *
 * Why: the walk of such bindings took the writer's one-entry shape cache
 * (write-json-keys.ts) from the record's data object, so the next record paid for its
 * data shape again; `child({ requestId }).info(msg, 7 fields)` cost ~1 µs more than
 * `info` alone for that (bench/bridges-http.ts --record: the adapter's record 4.0 → 3.1 µs
 * of main-thread CPU). What remains per child is mostly the value's redaction check
 * (plan.plainClear on a random UUID: ~0.25 µs, the same check the walk makes).
 */
import { types } from "node:util";
import {
  initialStates,
  PATH_MATCH,
  stepPaths,
  type CompiledPath,
  type PathStates,
} from "./redact-paths.js";
import { keyJson } from "./write-json-keys.js";
import { writeJson } from "./write-json.js";
import { REDACTED, type RedactionPlan, type WalkContext } from "./walk-context.js";

const REDACTED_JSON = JSON.stringify(REDACTED);

/** Bindings with more keys than this take the full walk. */
export const FLAT_MAX_KEYS = 8;
/** Longer keys are not cached (and take the full walk). */
const KEY_MAX = 256;
const CACHE_MAX = 4096;

/** What the walk writes for one key of the bindings: `"key":`, and whether its value is redacted. */
interface KeyRule {
  name: string;
  redacted: boolean;
}

/** One plan's decisions for the `bindings` field. */
interface FieldRules {
  /** The paths the rules were made from (a plan's paths are fixed; checked anyway). */
  paths: readonly CompiledPath[] | null;
  /** A custom path ends at `bindings` itself: the whole field is "[REDACTED]". */
  all: boolean;
  /** The live path states below `bindings`, null when no path reaches into it. */
  states: PathStates | null;
  /** Key name → its rule, or null when the walk writes that key otherwise (keyJson). */
  keys: Map<string, KeyRule | null>;
}

const rulesByPlan = new WeakMap<RedactionPlan, FieldRules>();
const noPlanRules: FieldRules = {
  paths: null,
  all: false,
  states: null,
  keys: new Map(),
};

function rulesFor(plan: RedactionPlan | null): FieldRules {
  if (plan === null) return noPlanRules;
  let rules = rulesByPlan.get(plan);
  if (rules === undefined || rules.paths !== plan.paths) {
    const init = initialStates(plan.paths);
    const next = init === null ? null : stepPaths(plan.paths, init, "bindings");
    rules = {
      paths: plan.paths,
      all: next === PATH_MATCH,
      states: next === PATH_MATCH ? null : next,
      keys: new Map(),
    };
    rulesByPlan.set(plan, rules);
  }
  return rules;
}

/** The walk's decision for key `k` (write-json.ts propsJson and memberJson), cached. */
function keyRule(rules: FieldRules, plan: RedactionPlan | null, k: string): KeyRule | null {
  let rule = rules.keys.get(k);
  if (rule !== undefined) return rule;
  if (k.length > KEY_MAX) return null;
  const name = keyJson(k);
  if (name === undefined) rule = null;
  else {
    const states = rules.states;
    const redacted =
      plan !== null &&
      (plan.isSensitiveKey(k) ||
        (states !== null && stepPaths(plan.paths, states, k) === PATH_MATCH));
    rule = { name, redacted };
  }
  if (rules.keys.size >= CACHE_MAX) rules.keys.clear();
  rules.keys.set(k, rule);
  return rule;
}

/**
 * The JSON text `serializeField("bindings", o, opts)` makes for `o` under the walk context
 * `ctx`, or null when `o` is not a flat plain object (the caller walks it).
 * @example flatBindingsJson({ requestId: "r-1" }, ctx) // '{"requestId":"r-1"}'
 */
export function flatBindingsJson(o: object, ctx: WalkContext): string | null {
  const plan = ctx.plan;
  const rules = rulesFor(plan);
  // fieldJson: a path naming the field redacts it before anything in it is read
  if (rules.all) return REDACTED_JSON;
  try {
    if (types.isProxy(o)) return null; // its traps are user code: the walk runs them, once
    const proto: unknown = Object.getPrototypeOf(o);
    if ((proto !== Object.prototype && proto !== null) || Array.isArray(o)) return null;
    if (ctx.maxDepth === 0) return null; // "[MaxDepth]"
    const keys = Object.keys(o);
    const n = keys.length;
    if (n > FLAT_MAX_KEYS || n > ctx.maxKeys) return null;
    if ("toJSON" in o) return null;
    let out = "{";
    let first = true;
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      const rule = keyRule(rules, plan, k);
      if (rule === null) return null;
      const d = Object.getOwnPropertyDescriptor(o, k);
      if (d === undefined || !("value" in d)) return null; // an accessor: the walk calls it
      const v: unknown = d.value;
      // propsJson's order: a dropped value is dropped before any redaction
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      let text: string | undefined;
      if (rule.redacted) text = REDACTED_JSON;
      else if (typeof v === "object" && v !== null) return null;
      else text = writeJson(v, 1, ctx, null); // a primitive: no depth, path or stack involved
      if (text === undefined) continue;
      out += first ? rule.name : `,${rule.name}`;
      out += text;
      first = false;
    }
    return `${out}}`;
  } catch {
    return null;
  }
}
