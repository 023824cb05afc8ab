/** Source context in the drawer: ±12 lines around the caller with the line highlighted, or the typed reason. */
import { useEffect, useState } from "preact/hooks";
import type { SourceContextResponse } from "../../api-types.js";
import type { ApiClient } from "../lib/api-client.js";
import { ApiFailure } from "../lib/api-client.js";

const REASONS: Record<string, string> = {
  "no-project": "No project attached",
  "outside-project": "Outside the project",
  "not-found": "Not found",
  "not-source": "Not a source file",
  "too-large": "File too large",
  "no-caller": "No caller",
  sensitive: "Hidden: may hold credentials",
};

export function SourceContext(props: {
  api: ApiClient;
  caller: string | undefined;
  stack: string | undefined;
}) {
  const [res, setRes] = useState<SourceContextResponse | { error: string } | null>(null);
  useEffect(() => {
    let live = true;
    setRes(null);
    props.api
      .sourceContext({
        ...(props.caller ? { caller: props.caller } : {}),
        ...(props.stack ? { stack: props.stack } : {}),
      })
      .then((r) => live && setRes(r))
      .catch(
        (e: unknown) =>
          live &&
          setRes({
            error: e instanceof ApiFailure ? e.message : "could not load the source context",
          }),
      );
    return () => {
      live = false;
    };
  }, [props.caller, props.stack]);

  if (res === null)
    return (
      <div class="reason">
        <span class="spinner" /> reading the source…
      </div>
    );
  if ("error" in res) return <div class="reason">{res.error}</div>;
  if (!res.ok) {
    return (
      <div class="reason" data-testid="source-reason" data-reason={res.reason}>
        <b>{REASONS[res.reason] ?? res.reason}</b> <code>({res.reason})</code> — {res.detail}
      </div>
    );
  }
  return (
    <div class="src" data-testid="source-context" data-file={res.file} data-line={res.line}>
      <div class="file">
        {res.file}:{res.line}
      </div>
      <div class="code">
        {res.lines.map((text, i) => {
          const n = res.startLine + i;
          return (
            <div class={`ln${n === res.line ? " hl" : ""}`} key={n} data-line={n}>
              <span>{n}</span>
              <span>{text || " "}</span>
            </div>
          );
        })}
      </div>
    </div>
  );
}
