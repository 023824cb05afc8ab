/** The right drawer: the selected record — message, fields, error and stack, source context, pretty JSON with copy. */
import { Fragment } from "preact";
import type { LogRecordLike } from "../../api-types.js";
import type { ApiClient } from "../lib/api-client.js";
import type { Row } from "../lib/rows.js";
import type { Term } from "../lib/search.js";
import { JsonView } from "./json-view.js";
import { SourceContext } from "./source-context.js";

export interface DetailDrawerProps {
  row: Row;
  api: ApiClient;
  onClose(): void;
  onFilter(t: Term): void;
  onCopy(text: string, what: string): void;
}

type ErrorLike = NonNullable<LogRecordLike["error"]>;

function causes(err: ErrorLike): ErrorLike[] {
  const out: ErrorLike[] = [];
  let cur: unknown = err.cause;
  while (cur && typeof cur === "object" && out.length < 5) {
    out.push(cur as ErrorLike);
    cur = (cur as ErrorLike).cause;
  }
  return out;
}

function Stack(props: { stack: string }) {
  return (
    <pre>
      {props.stack.split("\n").map((line, i) => (
        <div
          key={i}
          class={
            i === 0
              ? ""
              : /node_modules|node:internal|\(node:/.test(line)
                ? "frame-other"
                : "frame-project"
          }
        >
          {line}
        </div>
      ))}
    </pre>
  );
}

function ErrorBox(props: { err: ErrorLike; label?: string }) {
  const e = props.err;
  return (
    <div class="errbox">
      <div class="head">
        {props.label ? `${props.label}: ` : ""}
        {e.name ?? "Error"}
        {e.message ? `: ${e.message}` : ""}
        {e.code !== undefined ? ` [${String(e.code)}]` : ""}
      </div>
      {typeof e.stack === "string" && <Stack stack={e.stack} />}
    </div>
  );
}

export function DetailDrawer(p: DetailDrawerProps) {
  const r = p.row.rec;
  const meta: [string, string, Term | null][] = [
    ["time", r.timestamp, null],
    ["level", p.row.level, { field: "level", value: p.row.level, negate: false }],
    ...(r.service
      ? [
          ["service", r.service, { field: "service", value: r.service, negate: false }] as [
            string,
            string,
            Term,
          ],
        ]
      : []),
    ...(r.caller
      ? [
          ["caller", r.caller, { field: "caller", value: r.caller, negate: false }] as [
            string,
            string,
            Term,
          ],
        ]
      : []),
    ...(r.traceId
      ? [
          ["traceId", r.traceId, { field: "traceId", value: r.traceId, negate: false }] as [
            string,
            string,
            Term,
          ],
        ]
      : []),
    ...(r.spanId ? [["spanId", r.spanId, null] as [string, string, null]] : []),
  ];
  const stack = typeof r.error?.stack === "string" ? r.error.stack : undefined;
  return (
    <aside class="drawer" data-testid="drawer" aria-label="Record details">
      <header>
        <span class={`pill lv-${p.row.level}`}>{p.row.level}</span>
        <span class="when">{r.timestamp}</span>
        <span class="spacer" />
        <button
          type="button"
          class="btn small"
          onClick={() => p.onCopy(JSON.stringify(r, null, 2), "record JSON")}
          data-testid="copy-json"
        >
          Copy JSON
        </button>
        <button
          type="button"
          class="btn small ghost"
          onClick={p.onClose}
          title="Close (Esc)"
          aria-label="Close"
        >
          ✕
        </button>
      </header>
      <div class="content">
        <div class="message" data-testid="drawer-message">
          {String(r.message ?? "")}
        </div>
        <dl class="meta">
          {meta.map(([k, v, term]) => (
            <Fragment key={k}>
              <dt>{k}</dt>
              <dd>
                {term ? (
                  <button
                    type="button"
                    title={`Filter ${term.field}:${term.value}`}
                    onClick={() => p.onFilter(term)}
                  >
                    {v}
                  </button>
                ) : (
                  v
                )}
              </dd>
            </Fragment>
          ))}
        </dl>
        {r.error && (
          <section>
            <h4>Error</h4>
            <ErrorBox err={r.error} />
            {causes(r.error).map((c, i) => (
              <div style="margin-top:6px" key={i}>
                <ErrorBox err={c} label="caused by" />
              </div>
            ))}
          </section>
        )}
        <section>
          <h4>Source</h4>
          <SourceContext api={p.api} caller={r.caller} stack={r.caller ? undefined : stack} />
        </section>
        <section>
          <h4>
            Record (as stored)
            <button
              type="button"
              class="btn small"
              onClick={() => p.onCopy(JSON.stringify(r), "record as one line")}
            >
              Copy line
            </button>
          </h4>
          <JsonView value={r} testid="drawer-json" />
        </section>
      </div>
    </aside>
  );
}
