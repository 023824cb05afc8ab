/** Formatting for the UI: counts, bytes, times (UTC or local), durations. */

const nf = new Intl.NumberFormat("en-US");

/** 14200 → "14,200" */
export function fmtCount(n: number): string {
  return nf.format(n);
}

/** 8_493_465 → "8.1 MiB"; small values keep one decimal. */
export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 || Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** Bytes in MiB without the unit, for "8.1/16 MiB". */
export function fmtMiB(n: number): string {
  const v = n / (1024 * 1024);
  return v === 0 ? "0" : v >= 100 || Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1);
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

interface Parts {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  ms: number;
}

function parts(ms: number, utc: boolean): Parts {
  const t = new Date(ms);
  return utc
    ? {
        y: t.getUTCFullYear(),
        mo: t.getUTCMonth() + 1,
        d: t.getUTCDate(),
        h: t.getUTCHours(),
        mi: t.getUTCMinutes(),
        s: t.getUTCSeconds(),
        ms: t.getUTCMilliseconds(),
      }
    : {
        y: t.getFullYear(),
        mo: t.getMonth() + 1,
        d: t.getDate(),
        h: t.getHours(),
        mi: t.getMinutes(),
        s: t.getSeconds(),
        ms: t.getMilliseconds(),
      };
}

/** Row time: `12:03:04.123`, with `06-12 ` in front when the range spans days. */
export function fmtRowTime(ms: number, utc: boolean, withDate: boolean): string {
  const p = parts(ms, utc);
  const time = `${pad(p.h)}:${pad(p.mi)}:${pad(p.s)}.${pad(p.ms, 3)}`;
  return withDate ? `${pad(p.mo)}-${pad(p.d)} ${time}` : time;
}

/** `2025-06-12 12:03` (minute precision) for ranges and chips. */
export function fmtMinute(ms: number, utc: boolean): string {
  const p = parts(ms, utc);
  return `${p.y}-${pad(p.mo)}-${pad(p.d)} ${pad(p.h)}:${pad(p.mi)}`;
}

/** Value for `<input type="datetime-local">` in the chosen zone. */
export function toInputValue(ms: number, utc: boolean): string {
  const p = parts(ms, utc);
  return `${p.y}-${pad(p.mo)}-${pad(p.d)}T${pad(p.h)}:${pad(p.mi)}`;
}

/** Parses a `datetime-local` value in the chosen zone; NaN when empty or invalid. */
export function fromInputValue(value: string, utc: boolean): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return NaN;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return utc ? Date.UTC(y, mo - 1, d, h, mi, s) : new Date(y, mo - 1, d, h, mi, s).getTime();
}

/** 5400000 → "1.5 h"; 691200000 → "8 days". */
export function fmtSpan(ms: number): string {
  const min = ms / 60_000;
  if (min < 90) return `${Math.round(min)} min`;
  const h = min / 60;
  if (h < 48) return `${Number.isInteger(h) ? h : h.toFixed(1)} h`;
  const d = h / 24;
  return `${Number.isInteger(d) ? d : d.toFixed(1)} days`;
}

/** 1234.5 → "1.23 s", 87 → "87 ms". */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  if (ms >= 1000) return `${(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s`;
  return `${ms >= 10 ? Math.round(ms) : ms.toFixed(1)} ms`;
}

/** "3 min ago" style, for first/last seen. */
export function fmtAgo(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}
