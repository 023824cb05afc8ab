/**
 * The virtualised record list: fixed 24 px rows, only the visible slice (plus
 * overscan) is in the DOM, so 100,000 rows scroll as smoothly as 100.
 */
import { Component } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Row } from "../lib/rows.js";
import { fmtRowTime } from "../lib/format.js";

export const ROW_HEIGHT = 24;
const OVERSCAN = 12;
const COLS = "var(--cols)";

export interface RecordListProps {
  rows: Row[];
  cursor: number;
  openKey: string | null;
  utc: boolean;
  withDate: boolean;
  showService: boolean;
  onPick(index: number, open: boolean): void;
}

function kvs(row: Row): [string, string][] {
  const data = row.rec.data;
  if (!data || typeof data !== "object" || Array.isArray(data)) return [];
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (v === null || typeof v === "object") continue;
    const s = String(v);
    out.push([k, s.length > 40 ? `${s.slice(0, 39)}…` : s]);
    if (out.length === 4) break;
  }
  return out;
}

interface RowViewProps {
  row: Row;
  index: number;
  cursor: boolean;
  open: boolean;
  utc: boolean;
  withDate: boolean;
  showService: boolean;
  onPick(index: number, open: boolean): void;
}

/** One row; re-renders only when its own inputs change (scrolling adds rows, it does not redraw the others). */
class RowView extends Component<RowViewProps> {
  override shouldComponentUpdate(n: RowViewProps): boolean {
    const o = this.props;
    return (
      n.row !== o.row ||
      n.index !== o.index ||
      n.cursor !== o.cursor ||
      n.open !== o.open ||
      n.utc !== o.utc ||
      n.withDate !== o.withDate ||
      n.showService !== o.showService
    );
  }

  override render() {
    const { row, index, utc, withDate, showService } = this.props;
    const cls = `row lvl-${row.level}${this.props.cursor ? " cursor" : ""}${this.props.open ? " open" : ""}`;
    const err = row.rec.error?.name;
    return (
      <div
        class={cls}
        role="row"
        aria-rowindex={index + 1}
        data-key={row.key}
        data-testid="row"
        style={{ transform: `translateY(${index * ROW_HEIGHT}px)`, gridTemplateColumns: COLS }}
        onClick={() => this.props.onPick(index, true)}
      >
        <span class="t" title={row.rec.timestamp}>
          {fmtRowTime(row.ts, utc, withDate)}
        </span>
        <span>
          <span class={`pill lv-${row.level}`}>{row.level}</span>
        </span>
        {showService && <span class="svc">{row.rec.service ?? ""}</span>}
        <span class="msg">
          {err && err !== "Error" && !String(row.rec.message).includes(err) ? <b>{err}: </b> : null}
          {String(row.rec.message ?? "")}
          {kvs(row).map(([k, v]) => (
            <span class="kv" key={k}>
              <b>{k}</b>={v}
            </span>
          ))}
        </span>
        <span class="caller" title={row.rec.caller}>
          {row.rec.caller ?? ""}
        </span>
      </div>
    );
  }
}

export function RecordList(p: RecordListProps) {
  const el = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  const frame = useRef(0);

  useLayoutEffect(() => {
    const node = el.current;
    if (!node) return;
    setHeight(node.clientHeight);
    const ro = new ResizeObserver(() => setHeight(node.clientHeight));
    ro.observe(node);
    return () => ro.disconnect();
  }, []);

  // Keep the keyboard cursor in view.
  useEffect(() => {
    const node = el.current;
    if (!node || p.cursor < 0) return;
    const y = p.cursor * ROW_HEIGHT;
    if (y < node.scrollTop) node.scrollTop = y;
    else if (y + ROW_HEIGHT > node.scrollTop + node.clientHeight)
      node.scrollTop = y + ROW_HEIGHT - node.clientHeight;
  }, [p.cursor]);

  const onScroll = () => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => setTop(el.current?.scrollTop ?? 0));
  };

  const start = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const end = Math.min(p.rows.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
  const slice = p.rows.slice(start, end);
  const cols = `${p.withDate ? "132px" : "92px"} 70px ${p.showService ? "96px " : ""}minmax(0,1fr) minmax(0,190px)`;

  return (
    <>
      <div class="list-head" style={{ "--cols": cols, height: "26px" }}>
        <span>Time{p.utc ? " (UTC)" : ""}</span>
        <span>Level</span>
        {p.showService && <span>Service</span>}
        <span>Message</span>
        <span style="text-align:right">Caller</span>
      </div>
      <div
        class="list"
        ref={el}
        onScroll={onScroll}
        tabIndex={-1}
        role="grid"
        aria-rowcount={p.rows.length}
        data-testid="list"
        style={{ "--cols": cols }}
      >
        <div style={{ height: `${p.rows.length * ROW_HEIGHT}px`, position: "relative" }}>
          {slice.map((row, i) => {
            const index = start + i;
            return (
              <RowView
                key={row.id}
                row={row}
                index={index}
                cursor={index === p.cursor}
                open={row.key === p.openKey}
                utc={p.utc}
                withDate={p.withDate}
                showService={p.showService}
                onPick={p.onPick}
              />
            );
          })}
        </div>
      </div>
    </>
  );
}
