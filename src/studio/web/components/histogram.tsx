/**
 * The histogram: records per time bucket stacked by level (uPlot bars).
 * Dragging selects a window of the loaded data; it never loads anything.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { LEVELS } from "../lib/rows.js";
import type { HistogramData } from "../lib/histogram-data.js";
import { fmtCount, fmtMinute, fmtRowTime } from "../lib/format.js";

export interface HistogramProps {
  data: HistogramData | null;
  window: { from: number; to: number } | null;
  /** When partial: records older than this are not (fully) loaded yet (hatched). */
  unloadedBefore: number | null;
  utc: boolean;
  onWindow(w: { from: number; to: number }): void;
}

/** Bottom-up stacking order: the most severe levels sit on the baseline. */
const STACK = [...LEVELS].reverse();

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

function useScheme(): string {
  const [scheme, setScheme] = useState(() =>
    matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
  );
  useEffect(() => {
    const mq = matchMedia("(prefers-color-scheme: dark)");
    const on = () => setScheme(mq.matches ? "dark" : "light");
    mq.addEventListener("change", on);
    return () => mq.removeEventListener("change", on);
  }, []);
  return scheme;
}

/** uPlot data: x, then cumulative sums from the top of the stack down (drawn largest first). */
function toAligned(d: HistogramData): uPlot.AlignedData {
  const n = d.xs.length;
  const cum: number[][] = [];
  let acc = new Array<number>(n).fill(0);
  for (const level of STACK) {
    const counts = d.counts[LEVELS.indexOf(level)]!;
    acc = acc.map((v, i) => v + counts[i]!);
    cum.push(acc);
  }
  return [d.xs, ...cum.reverse()] as uPlot.AlignedData;
}

/** Minimum pixels between x ticks for "MM-DD HH:mm" labels (multi-day spans) and for "HH:mm". */
const LONG_LABEL_SPACE_PX = 96;
const SHORT_LABEL_SPACE_PX = 56;
const spanMs = (u: uPlot) => ((u.scales.x!.max ?? 0) - (u.scales.x!.min ?? 0)) * 1000;

export function Histogram(p: HistogramProps) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const props = useRef(p);
  props.current = p;
  const scheme = useScheme();
  const [hover, setHover] = useState<string | null>(null);

  useEffect(() => {
    const el = host.current;
    const d = p.data;
    if (!el || !d) return;
    const order = [...STACK].reverse();
    const grid = cssVar("--border");
    const axis = cssVar("--faint");
    const opts: uPlot.Options = {
      width: el.clientWidth,
      height: el.clientHeight,
      legend: { show: false },
      padding: [6, 16, 0, 0],
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
      select: { show: true, left: 0, top: 0, width: 0, height: 0 },
      scales: { x: { time: true } },
      axes: [
        {
          stroke: axis,
          grid: { show: false },
          ticks: { stroke: grid, size: 3 },
          size: 20,
          font: "11px system-ui",
          gap: 2,
          // Tick spacing follows the label's width ("11-24 08:00" ≈ 66 px at 11 px): uPlot fits
          // plot width / space ticks, so the density follows the chart's width and labels never touch.
          space: (u) => (spanMs(u) > 2 * 86400_000 ? LONG_LABEL_SPACE_PX : SHORT_LABEL_SPACE_PX),
          values: (u, splits) => {
            const long = spanMs(u) > 2 * 86400_000;
            return splits.map((v) => {
              const label = fmtMinute(v * 1000, props.current.utc);
              return long ? label.slice(5) : label.slice(11);
            });
          },
        },
        {
          stroke: axis,
          grid: { stroke: grid, width: 1 },
          ticks: { show: false },
          size: 36,
          font: "11px system-ui",
          splits: (u) => {
            const max = u.scales.y!.max ?? 1;
            return [0, Math.ceil(max / 2), Math.ceil(max)];
          },
        },
      ],
      series: [
        {},
        ...order.map((level) => ({
          label: level,
          fill: cssVar(`--lv-${level}`),
          stroke: cssVar(`--lv-${level}`),
          width: 0,
          paths: uPlot.paths.bars!({ size: [0.86, 48], align: 1 }),
          points: { show: false },
        })),
      ],
      hooks: {
        setSelect: [
          (u) => {
            if (u.select.width < 3) return;
            const from = u.posToVal(u.select.left, "x") * 1000;
            const to = u.posToVal(u.select.left + u.select.width, "x") * 1000;
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            props.current.onWindow({ from: Math.floor(from), to: Math.ceil(to) });
          },
        ],
        setCursor: [
          (u) => {
            const i = u.cursor.idx;
            const cur = props.current.data;
            if (i === null || i === undefined || !cur) return setHover(null);
            const parts = LEVELS.map((l, li) => [l, cur.counts[li]![i]!] as const)
              .filter(([, c]) => c > 0)
              .reverse();
            const t = cur.xs[i]! * 1000;
            setHover(
              `${fmtRowTime(t, props.current.utc, cur.step >= 3600_000)} · ${parts.length ? parts.map(([l, c]) => `${fmtCount(c)} ${l}`).join(" · ") : "no records"}`,
            );
          },
        ],
        draw: [
          (u) => {
            const before = props.current.unloadedBefore;
            const { left: bl, top: bt, height: bh } = u.bbox;
            if (before !== null) {
              const x = Math.min(u.valToPos(before / 1000, "x", true), bl + u.bbox.width);
              if (x > bl + 2) {
                const ctx = u.ctx;
                ctx.save();
                ctx.beginPath();
                ctx.rect(bl, bt, x - bl, bh);
                ctx.clip();
                ctx.strokeStyle = grid;
                ctx.lineWidth = 1 * devicePixelRatio;
                for (let i = -bh; i < x - bl; i += 8 * devicePixelRatio) {
                  ctx.moveTo(bl + i, bt + bh);
                  ctx.lineTo(bl + i + bh, bt);
                }
                ctx.stroke();
                ctx.fillStyle = axis;
                ctx.font = `${11 * devicePixelRatio}px system-ui`;
                ctx.textAlign = "center";
                if (x - bl > 120 * devicePixelRatio)
                  ctx.fillText("not fully loaded yet · Load more", bl + (x - bl) / 2, bt + bh / 2);
                ctx.restore();
              }
            }
            const w = props.current.window;
            if (!w) return;
            const ctx = u.ctx;
            const l = u.valToPos(w.from / 1000, "x", true);
            const r = u.valToPos(w.to / 1000, "x", true);
            const { left, top, width, height } = u.bbox;
            ctx.save();
            ctx.fillStyle = scheme === "dark" ? "rgba(14,16,20,0.6)" : "rgba(247,248,250,0.7)";
            if (l > left) ctx.fillRect(left, top, l - left, height);
            if (r < left + width) ctx.fillRect(r, top, left + width - r, height);
            ctx.restore();
          },
        ],
      },
    };
    const u = new uPlot(opts, toAligned(d), el);
    plot.current = u;
    const ro = new ResizeObserver(() =>
      u.setSize({ width: el.clientWidth, height: el.clientHeight }),
    );
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
    // Recreate on theme, zone and bucket layout; data of the same layout is swapped below.
  }, [scheme, p.utc, p.data === null, p.data?.step, p.data?.xs[0], p.data?.xs.length]);

  useEffect(() => {
    if (plot.current && p.data) plot.current.setData(toAligned(p.data));
  }, [p.data]);
  useEffect(() => {
    plot.current?.redraw(false);
  }, [p.window, p.unloadedBefore]);

  const total = p.data ? p.data.counts.reduce((s, c) => s + c.reduce((a, b) => a + b, 0), 0) : 0;
  return (
    <div class="hist" data-testid="histogram">
      {p.data ? (
        <>
          <div class="caption">
            {hover ?? `${fmtCount(total)} records · drag to zoom into loaded data`}
          </div>
          <div ref={host} style="width:100%;height:100%" />
        </>
      ) : (
        <div class="placeholder" aria-hidden="true">
          {Array.from({ length: 48 }, (_, i) => (
            <i key={i} style={{ height: `${18 + ((i * 37) % 50)}%` }} />
          ))}
        </div>
      )}
    </div>
  );
}
