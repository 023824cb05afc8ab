/**
 * What source context never shows: stowage config files (they may
 * hold literal credentials), and in any other file the string literals that
 * a sensitive key gives a value (`secretAccessKey: "…"`, `password = '…'`), plus
 * secrets inside any string or comment (the default redaction patterns, `name=value`
 * and `name: value` pairs). Applies whatever the mode (`--source` or a loaded config):
 * it needs no config to know.
 *
 * The file is read as tokens (identifiers, string literals, operators; comments
 * skipped), not line by line, so these forms are caught too (issue 31 §3): the value
 * on the next line, a comment between key and colon, computed `["password"]:` keys,
 * `["password", "…"]` tuples and `set("x-api-key", "…")` calls, fallbacks
 * (`?? "…"`, `|| "…"`), `String.raw\`…\``, PHP `=>` and Go `:=`. Line count and line
 * breaks are kept, so line numbers stay right.
 */
import { basename } from "node:path";
import { createKeyMatcher, DEFAULT_REDACT_KEYS, isCredentialHeaderName } from "../record/redact.js";
import { redactDefaultPatterns } from "../record/redact-patterns.js";
import { createTextRedactor } from "../record/redact-text.js";

/**
 * Credential spellings of S3 clients, config files and mail transports, on top of the
 * §3.3 keys: `pass` is nodemailer's `auth.pass` (as a data key it stays: test results).
 */
const CREDENTIAL_KEYS = ["access key id", "access key", "session token", "credentials", "pass"];
const keyMatcher = createKeyMatcher([...DEFAULT_REDACT_KEYS, ...CREDENTIAL_KEYS]);
const sensitive = (name: string) => keyMatcher(name) || isCredentialHeaderName(name);
const redactText = createTextRedactor(sensitive, true);

/**
 * True for a stowage config file (`stowage.config.ts`, `.yaml`, …): never served as context.
 * @example isStowageConfigFile("/repo/stowage.config.ts") // true
 */
export function isStowageConfigFile(path: string): boolean {
  return /^stowage\.config\.[a-z]+$/i.test(basename(path));
}

type Kind = "id" | "str" | "regex" | "op" | "nl" | "comment";
interface Token {
  kind: Kind;
  start: number;
  end: number;
  /** Identifier or operator text; a string literal's content (between its quotes). */
  text: string;
}

/** Operators that link a key to its value: `:`, `=`, `:=`, `=>`, comparisons, `??=`, `||=`. */
const LINKS = new Set([":", "=", ":=", "=>", "==", "===", "!=", "!==", "??=", "||="]);
/** A line that starts with one of these continues the expression of the line before. */
const CONTINUES = new Set([".", "?.", "??", "||", "&&", "+", "?", ":", "|", "=>"]);
/** After these words a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set([
  "return",
  "typeof",
  "case",
  "else",
  "in",
  "of",
  "new",
  "throw",
  "yield",
  "await",
  "void",
  "delete",
]);
const OPERATOR = /===|!==|\?\?=|\|\|=|==|!=|=>|:=|\?\?|\|\||&&|\?\.|[^\s\w$]/y;
const WORD = /[A-Za-z0-9_$]+/y;
/** Tokens a value expression may span before it is cut (a function body is not a value). */
const MAX_VALUE_TOKENS = 200;

/** Splits source text into tokens; unterminated `"`/`'` strings end at the line (as an operator). */
function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let lastSig: Token | undefined;
  let i = 0;
  const push = (t: Token) => {
    out.push(t);
    if (t.kind !== "nl" && t.kind !== "comment") lastSig = t;
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === "\n") {
      push({ kind: "nl", start: i, end: i + 1, text: "\n" });
      i++;
    } else if (c === " " || c === "\t" || c === "\r") {
      i++;
    } else if (src.startsWith("//", i) || (c === "#" && /[\s!#]|$/.test(src[i + 1] ?? ""))) {
      const end = lineEnd(src, i);
      push({ kind: "comment", start: i, end, text: "" });
      i = end;
    } else if (src.startsWith("/*", i)) {
      const close = src.indexOf("*/", i + 2);
      const end = close === -1 ? src.length : close + 2;
      push({ kind: "comment", start: i, end, text: "" });
      i = end;
    } else if (c === '"' || c === "'" || c === "`") {
      const end = stringEnd(src, i, c);
      if (end === -1) {
        push({ kind: "op", start: i, end: i + 1, text: c });
        i++;
      } else {
        push({ kind: "str", start: i, end, text: src.slice(i + 1, end - 1) });
        i = end;
      }
    } else if (c === "/" && regexAllowed(lastSig)) {
      const end = regexEnd(src, i);
      push({
        kind: end === -1 ? "op" : "regex",
        start: i,
        end: end === -1 ? i + 1 : end,
        text: "/",
      });
      i = end === -1 ? i + 1 : end;
    } else {
      const re = /[A-Za-z0-9_$]/.test(c) ? WORD : OPERATOR;
      re.lastIndex = i;
      re.exec(src);
      const end = Math.max(re.lastIndex, i + 1);
      push({ kind: re === WORD ? "id" : "op", start: i, end, text: src.slice(i, end) });
      i = end;
    }
  }
  return out;
}

function lineEnd(src: string, i: number): number {
  const n = src.indexOf("\n", i);
  return n === -1 ? src.length : n;
}

/** End (after the closing quote) of the string at `i`; -1 when a `"`/`'` string is cut by a line end. */
function stringEnd(src: string, i: number, quote: string): number {
  for (let k = i + 1; k < src.length; k++) {
    const d = src[k];
    if (d === "\\") k++;
    else if (d === quote) return k + 1;
    else if (d === "\n" && quote !== "`") return -1;
  }
  return -1;
}

function regexAllowed(prev: Token | undefined): boolean {
  if (prev === undefined) return true;
  if (prev.kind === "id") return BEFORE_REGEX.has(prev.text);
  return prev.kind === "op" && !/^[)\]}]$/.test(prev.text);
}

/** End of the regular-expression literal at `i` (flags included), or -1 when none ends on the line. */
function regexEnd(src: string, i: number): number {
  let inClass = false;
  for (let k = i + 1; k < src.length; k++) {
    const d = src[k];
    if (d === "\n") return -1;
    if (d === "\\") k++;
    else if (d === "[") inClass = true;
    else if (d === "]") inClass = false;
    else if (d === "/" && !inClass) {
      let e = k + 1;
      while (e < src.length && /[a-z]/.test(src[e]!)) e++;
      return e;
    }
  }
  return -1;
}

/** Start offsets of the string tokens that hold a credential. */
function secretStrings(toks: readonly Token[]): Set<number> {
  const secret = new Set<number>();
  const code = toks.filter((t) => t.kind !== "comment");
  const at = (j: number) => code[j];
  const nextSig = (j: number) => {
    while (code[j]?.kind === "nl") j++;
    return j;
  };
  for (let j = 0; j < code.length; j++) {
    const t = code[j]!;
    if (t.kind !== "id" && t.kind !== "str") continue;
    let k = nextSig(j + 1);
    // computed key or subscript: ["password"]: …, env["PASSWORD"] = …
    if (t.kind === "str" && at(j - 1)?.text === "[" && at(k)?.text === "]") k = nextSig(k + 1);
    if (at(k)?.text === "?" || at(k)?.text === "!") k = nextSig(k + 1); // password?: string
    const op = at(k);
    if (op?.kind !== "op") continue;
    if (LINKS.has(op.text)) {
      if (sensitive(t.text)) markValue(code, k + 1, secret);
    } else if (op.text === "," && t.kind === "str" && sensitive(t.text)) {
      // ["password", "…"], headers.set("x-api-key", "…"), getenv("PASSWORD", "…")
      let v = nextSig(k + 1);
      if (at(v)?.text === "String" && at(v + 1)?.text === "." && at(v + 2)?.text === "raw") v += 3;
      if (at(v)?.kind === "str") secret.add(at(v)!.start);
    }
  }
  return secret;
}

/** Marks every string literal of the value expression that starts at `j` (`code` has no comments). */
function markValue(code: readonly Token[], j: number, secret: Set<number>): void {
  let depth = 0;
  let last: Token | undefined;
  for (let n = 0; j < code.length && n < MAX_VALUE_TOKENS; j++, n++) {
    const t = code[j]!;
    if (t.kind === "nl") {
      if (depth > 0 || last === undefined || !completes(last)) continue;
      let k = j + 1;
      while (code[k]?.kind === "nl") k++;
      if (code[k]?.kind === "op" && CONTINUES.has(code[k]!.text)) continue;
      return;
    }
    if (t.kind === "op") {
      if ("([{".includes(t.text)) depth++;
      else if (")]}".includes(t.text) && --depth < 0) return;
      else if (depth === 0 && (t.text === "," || t.text === ";")) return;
    } else if (t.kind === "str") secret.add(t.start);
    last = t;
  }
}

/** True when an expression may end after `t` (an operand or a closing bracket). */
function completes(t: Token): boolean {
  return t.kind === "id" || t.kind === "str" || t.kind === "regex" || /^[)\]}]$/.test(t.text);
}

/**
 * Returns the lines with credential string values replaced by `[REDACTED]` (the quotes
 * and line breaks kept) and pattern matches by their marker. Pass the whole file for
 * multi-line forms (a key on the line before the first one shown).
 * @example scrubSourceLines(['  secretAccessKey: "abc",']) // ['  secretAccessKey: "[REDACTED]",']
 */
export function scrubSourceLines(lines: readonly string[]): string[] {
  const src = lines.join("\n");
  const toks = tokenize(src);
  const marked = secretStrings(toks);
  let out = "";
  let copied = 0;
  for (const t of toks) {
    if (t.kind !== "str" && t.kind !== "comment") continue;
    const body = src.slice(t.start, t.end);
    let text: string;
    if (t.kind === "str" && (marked.has(t.start) || body.includes("PRIVATE KEY"))) {
      // a whole PEM block too: line by line, only its BEGIN line would match
      text = `${body[0]}[REDACTED]${"\n".repeat(count(body, "\n"))}${body[body.length - 1]}`;
    } else {
      text = body.split("\n").map(redactText).join("\n");
    }
    if (text === body) continue;
    out += src.slice(copied, t.start) + text;
    copied = t.end;
  }
  const scrubbed = copied === 0 ? src : out + src.slice(copied);
  return scrubbed.split("\n").map(redactDefaultPatterns);
}

function count(s: string, c: string): number {
  let n = 0;
  for (let i = s.indexOf(c); i !== -1; i = s.indexOf(c, i + 1)) n++;
  return n;
}
