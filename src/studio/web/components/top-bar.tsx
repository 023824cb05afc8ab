/** The top bar: source, range presets + custom, Load logs / Load more, auto-refresh, Copy AI context. */
import { useState } from "preact/hooks";
import { PRESETS, type Preset } from "../lib/url-state.js";
import { fmtMinute, fmtSpan, fromInputValue, toInputValue } from "../lib/format.js";

export interface TopBarProps {
  source: string;
  project: string | null;
  preset: Preset | null;
  custom: { from: number; to: number } | null;
  utc: boolean;
  /** Why the chosen range cannot load (over 7 days, empty), or null. */
  rangeProblem: string | null;
  busy: null | "load" | "more" | "refresh";
  canMore: boolean;
  auto: { on: boolean; available: boolean; why: string };
  onPreset(p: Preset): void;
  onCustom(r: { from: number; to: number }): void;
  onUtc(utc: boolean): void;
  onLoad(): void;
  onMore(): void;
  onAuto(on: boolean): void;
  onCopyAi(): void;
  canCopy: boolean;
}

export function Logo() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <rect x="3" y="4" width="18" height="5" rx="1.5" stroke="currentColor" stroke-width="2" />
      <rect
        x="3"
        y="10.5"
        width="18"
        height="5"
        rx="1.5"
        stroke="currentColor"
        stroke-width="2"
        opacity="0.7"
      />
      <rect x="3" y="17" width="12" height="3.5" rx="1.5" fill="currentColor" opacity="0.5" />
    </svg>
  );
}

function CustomRange(props: {
  custom: { from: number; to: number } | null;
  utc: boolean;
  onApply(r: { from: number; to: number }): void;
  active: boolean;
  problem: string | null;
}) {
  const [open, setOpen] = useState(false);
  const now = Date.now();
  const init = props.custom ?? { from: now - 3600_000, to: now };
  const [from, setFrom] = useState(toInputValue(init.from, props.utc));
  const [to, setTo] = useState(toInputValue(init.to, props.utc));
  const f = fromInputValue(from, props.utc);
  const t = fromInputValue(to, props.utc);
  const span = t - f;
  const local = !Number.isFinite(span)
    ? "enter both times"
    : span <= 0
      ? "the end must be after the start"
      : span > PRESETS["7d"]
        ? `${fmtSpan(span)}: Studio loads at most 7 days at a time`
        : null;
  return (
    <div class="custom-range">
      <div class="seg">
        <button
          type="button"
          aria-pressed={props.active}
          onClick={() => setOpen(!open)}
          data-testid="custom-range"
        >
          {props.active && props.custom
            ? `${fmtMinute(props.custom.from, props.utc)} → ${fmtMinute(props.custom.to, props.utc)}`
            : "Custom…"}
        </button>
      </div>
      {open && (
        <form
          class="popover"
          onSubmit={(e) => {
            e.preventDefault();
            if (Number.isFinite(span)) {
              props.onApply({ from: f, to: t });
              setOpen(false);
            }
          }}
        >
          <label>
            From ({props.utc ? "UTC" : "local time"})
            <input
              type="datetime-local"
              value={from}
              onInput={(e) => setFrom(e.currentTarget.value)}
              data-testid="custom-from"
            />
          </label>
          <label>
            To ({props.utc ? "UTC" : "local time"})
            <input
              type="datetime-local"
              value={to}
              onInput={(e) => setTo(e.currentTarget.value)}
              data-testid="custom-to"
            />
          </label>
          {local && (
            <div class="problem" data-testid="custom-problem">
              {local}
            </div>
          )}
          <div style="display:flex;gap:6px;justify-content:flex-end">
            <button type="button" class="btn small ghost" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button
              type="submit"
              class="btn small primary"
              disabled={!Number.isFinite(span)}
              data-testid="custom-apply"
            >
              Apply
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

export function TopBar(p: TopBarProps) {
  const loading = p.busy === "load";
  return (
    <header class="topbar">
      <div class="brand">
        <Logo /> Stowage <small>Studio</small>
      </div>
      <div
        class="source"
        title={`Source: ${p.source}${p.project ? `\nProject: ${p.project}` : "\nNo project attached (no source context)"}`}
      >
        <span>source</span>
        <code data-testid="source">{p.source}</code>
      </div>
      <div class="seg" role="group" aria-label="Time range">
        {(Object.keys(PRESETS) as Preset[]).map((k) => (
          <button
            type="button"
            key={k}
            aria-pressed={p.preset === k}
            onClick={() => p.onPreset(k)}
            data-testid={`preset-${k}`}
          >
            {k}
          </button>
        ))}
      </div>
      <CustomRange
        custom={p.custom}
        utc={p.utc}
        active={p.preset === null}
        onApply={p.onCustom}
        problem={p.rangeProblem}
      />
      <div class="seg" role="group" aria-label="Time zone">
        <button type="button" aria-pressed={p.utc} onClick={() => p.onUtc(true)}>
          UTC
        </button>
        <button type="button" aria-pressed={!p.utc} onClick={() => p.onUtc(false)}>
          Local
        </button>
      </div>
      {p.rangeProblem && (
        <span class="problem" data-testid="range-problem">
          {p.rangeProblem}
        </span>
      )}
      <div class="spacer" />
      <label class={`toggle ${p.auto.available ? "" : "disabled"}`} title={p.auto.why}>
        <input
          type="checkbox"
          checked={p.auto.on}
          disabled={!p.auto.available && !p.auto.on}
          onChange={(e) => p.onAuto(e.currentTarget.checked)}
          data-testid="auto-refresh"
        />
        Auto-refresh
      </label>
      <button
        type="button"
        class="btn"
        onClick={p.onCopyAi}
        disabled={!p.canCopy}
        title="Copy a compact block for an AI assistant: source, range, filters, counts, error groups and records (as stored). Nothing is sent anywhere."
        data-testid="copy-ai"
      >
        Copy AI context
      </button>
      {p.canMore && (
        <button
          type="button"
          class="btn"
          onClick={p.onMore}
          disabled={p.busy !== null}
          title="Resume exactly where the last grant stopped (one more grant). Shortcut: l"
          data-testid="load-more"
        >
          {p.busy === "more" ? <span class="spinner" /> : null} Load more
        </button>
      )}
      <button
        type="button"
        class="btn primary"
        onClick={p.onLoad}
        disabled={p.busy !== null || p.rangeProblem !== null}
        title={p.rangeProblem ?? "Start a new session for this range (one grant)"}
        data-testid="load"
      >
        {loading ? <span class="spinner" /> : null} Load logs
      </button>
    </header>
  );
}
