/**
 * The keyset state file `_keyset-<export>.json`: its shape, and reading it back as what
 * it is — bucket content that anyone with write access to the prefix can change.
 * A resumed run trusted it as is: `last: null` after 11 pages re-exported the table from
 * its first key, and 820,000 rows of a 600,000-row table were committed (issue 31 §4).
 *
 * A state is used only when all of these hold, else the run stops with a "format"
 * error naming the file and what is wrong (delete it to start over):
 * - the shape: exactly the fields below, of their types (`kind` one of the key kinds,
 *   `last` the text of a key of that kind, counts safe integers, SHA-256 hex);
 * - it is this export's: the same export name and `keyset_column`, and `prefix` is the
 *   folder the export's prefix gives for `started_at` (a state never points elsewhere);
 * - its parts are this run's pages in this format (`{export}_{run_id}_{page:06}…{ext}`),
 *   each listed once, in order, every page 1…`pages` present and no other;
 * - `schema` (written since issue 31), when present, holds the key column with `kind`.
 * What the database then says is checked by the run (keyset.ts): the key column's kind
 * and the columns match the state, and the source holds at least the state's rows up to
 * `last`.
 */
import { z } from "zod";
import { StowageError } from "../../shared/errors.js";
import type { ResolvedExport } from "../config.js";
import { CURSOR_KINDS } from "./cursor.js";
import type { Manifest } from "../manifest.js";
import { join, resolvePrefix, stamp } from "../naming.js";
import type { PartRecord } from "../rotating-output.js";
import type { ColumnKind } from "../sources/source.js";

/** `_keyset-<export>.json`: the pages a keyset run has completed. */
export interface KeysetState {
  version: 1;
  export: string;
  run_id: string;
  column: string;
  kind: ColumnKind;
  /** The run's resolved folder and start time (a resumed run keeps both). */
  prefix: string;
  started_at: string;
  page_size: number;
  pages: number;
  /** Text form of the last key of the last completed page. */
  last: string;
  parts: PartRecord[];
  /** The pages' columns (states written before issue 31 have none). */
  schema?: Manifest["schema"];
  updated_at: string;
}

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const stateSchema = z.strictObject({
  version: z.literal(1),
  export: z.string(),
  run_id: z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, "must be a run id (a ULID)"),
  column: z.string().min(1),
  kind: z.enum(CURSOR_KINDS as [ColumnKind, ...ColumnKind[]]),
  prefix: z.string(),
  started_at: z.iso.datetime(),
  page_size: z.number().int().min(1).max(10_000_000),
  pages: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  last: z.string(),
  parts: z
    .array(
      z.strictObject({
        path: z.string().min(1),
        rows: count,
        bytes: count,
        sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 (64 hex digits)"),
      }),
    )
    .min(1),
  schema: z
    .array(
      z.strictObject({
        name: z.string(),
        type: z.string(),
        source_type: z.string(),
        precision: z.number().int().optional(),
        scale: z.number().int().optional(),
      }),
    )
    .optional(),
  updated_at: z.string(),
});

const YMD = String.raw`[+-]?\d{4,6}-\d{2}-\d{2}`;
const TIME = String.raw`T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?`;
const FLOAT = /^(?:-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|-?Infinity|NaN)$/;
/** The text `cursorText` writes for a key of each kind (strings: any). */
const KEY_TEXT: Partial<Record<ColumnKind, RegExp>> = {
  int32: /^-?\d{1,10}$/,
  int64: /^-?\d{1,19}$/,
  float64: FLOAT,
  decimal: /^(?:-?\d+(?:\.\d+)?|NaN)$/,
  date: new RegExp(`^${YMD}$`),
  timestamp: new RegExp(`^${YMD}${TIME}$`),
  timestamptz: new RegExp(`^${YMD}${TIME}Z$`),
};

/** What to do about a state that cannot be resumed. */
export const KEYSET_RESTART_HINT =
  "delete it to start the keyset export from the beginning (the next run then removes the abandoned pages)";
const HINT = KEYSET_RESTART_HINT;

/**
 * Parses and checks a keyset state against the export it would resume (see the module
 * comment); `extension` is the format's (`csv.gz`, `parquet`, …).
 * @example const state = parseKeysetState(bytes, key, exp, format.extension);
 */
export function parseKeysetState(
  bytes: Uint8Array,
  key: string,
  exp: ResolvedExport,
  extension: string,
): KeysetState {
  const refuse = (what: string) =>
    new StowageError("format", `${key}: ${what}; it cannot be resumed`, { hint: HINT });
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw new StowageError("format", `${key} is not a stowage keyset state file (not JSON)`, {
      hint: HINT,
    });
  }
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`);
    throw refuse(`not a stowage keyset state file (${issues.join("; ")})`);
  }
  const s = parsed.data as KeysetState;
  if (s.export !== exp.name) throw refuse(`it belongs to export "${s.export}", not "${exp.name}"`);
  if (s.column !== exp.keysetColumn)
    throw refuse(
      `its pages follow column "${s.column}", but keyset_column is "${exp.keysetColumn}"`,
    );
  const folder = resolvePrefix(exp.prefixTemplate, exp.name, stamp(new Date(s.started_at)).date);
  if (s.prefix !== folder)
    throw refuse(`prefix "${s.prefix}" is not the export's folder for its start ("${folder}")`);
  if (!(KEY_TEXT[s.kind]?.test(s.last) ?? true))
    throw refuse(`last ${JSON.stringify(s.last)} is not the text of a ${s.kind} key`);
  const keyColumn = s.schema?.find((c) => c.name === s.column);
  if (s.schema && keyColumn?.type !== s.kind)
    throw refuse(`its schema does not give column "${s.column}" the kind ${s.kind}`);
  checkParts(s, exp.name, extension, refuse);
  return s;
}

/** The parts are this run's pages 1…`pages`, each object once, in order. */
function checkParts(
  s: KeysetState,
  exportName: string,
  extension: string,
  refuse: (what: string) => StowageError,
): void {
  const head = join(s.prefix, `${exportName}_${s.run_id}_`);
  const tail = `.${extension}`;
  let prev = { page: 0, n: 0 };
  for (const p of s.parts) {
    const m =
      p.path.startsWith(head) && p.path.endsWith(tail)
        ? /^(\d{6})(?:_part(\d+))?$/.exec(p.path.slice(head.length, p.path.length - tail.length))
        : null;
    if (!m)
      throw refuse(`part ${JSON.stringify(p.path)} is not a ${extension} page of run ${s.run_id}`);
    const at = { page: Number(m[1]), n: m[2] === undefined ? 1 : Number(m[2]) };
    const next =
      at.page === prev.page ? at.n === prev.n + 1 : at.page === prev.page + 1 && at.n === 1;
    if (!next || at.page > s.pages)
      throw refuse(
        `part ${p.path} is out of place (each page 1…${s.pages} once, in order; a part listed twice or a page missing)`,
      );
    prev = at;
  }
  if (prev.page !== s.pages)
    throw refuse(`pages is ${s.pages} but its parts end at page ${prev.page}`);
}
