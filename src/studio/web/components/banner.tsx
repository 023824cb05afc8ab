/** Messages: the server's errors (category, message, hint — e.g. the `stowage doctor` command), notices, and a short-lived toast. */
import { useEffect } from "preact/hooks";
import type { ApiFailure } from "../lib/api-client.js";

const TITLES: Record<string, string> = {
  auth: "Auth error",
  "bucket-not-found": "Bucket not found",
  "wrong-region": "Wrong region",
  connectivity: "Storage unreachable",
  range: "Range refused",
  allowance: "Allowance",
  busy: "Busy",
  stale: "Out of date",
  token: "Session token",
  host: "Host refused",
  origin: "Origin refused",
  network: "Studio unreachable",
};

function withCode(text: string) {
  return text
    .split(/(`[^`]+`)/)
    .map((part, i) =>
      part.startsWith("`") && part.endsWith("`") ? <code key={i}>{part.slice(1, -1)}</code> : part,
    );
}

export function Banner(props: {
  error?: ApiFailure;
  notice?: string;
  onClose: (() => void) | null;
  standalone?: boolean;
}) {
  const e = props.error;
  const body = e ? (
    <>
      <b>{TITLES[e.category] ?? "Load failed"}</b>
      <span>
        {withCode(e.message)}
        {e.hint && <span class="hint"> — {withCode(e.hint)}</span>}
      </span>
    </>
  ) : (
    <span>{withCode(props.notice ?? "")}</span>
  );
  const el = (
    <div
      class={`banner${e ? "" : " info"}`}
      role="alert"
      data-testid={e ? "error-banner" : "notice"}
      data-category={e?.category}
    >
      {body}
      {props.onClose && (
        <button
          type="button"
          class="btn small ghost close"
          onClick={props.onClose}
          aria-label="Dismiss"
        >
          ✕
        </button>
      )}
    </div>
  );
  return props.standalone ? (
    <div class="empty-state">
      <div class="card">{el}</div>
    </div>
  ) : (
    el
  );
}

export function Toast(props: { text: string; onDone(): void }) {
  useEffect(() => {
    const t = setTimeout(props.onDone, 2200);
    return () => clearTimeout(t);
  }, [props.text]);
  return (
    <div class="toast" role="status" data-testid="toast">
      {props.text}
    </div>
  );
}
