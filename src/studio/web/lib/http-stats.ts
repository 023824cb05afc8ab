/**
 * HTTP view data: records that carry a method, a status and a duration (in
 * `data`, `bindings` or at the top) → status distribution and per-route latency.
 */
import { fieldValue, type Row } from "./rows.js";

export interface HttpFacts {
  method: string;
  status: number;
  durationMs: number;
  route: string;
}

export interface RouteStats {
  route: string;
  count: number;
  errors5xx: number;
  p50: number;
  p95: number;
  max: number;
}

export interface HttpStats {
  total: number;
  byClass: { cls: string; count: number }[];
  byStatus: { status: number; count: number }[];
  routes: RouteStats[];
}

const pick = (row: Row, names: string[]): unknown => {
  for (const n of names) {
    const v = fieldValue(row.rec, n);
    if (v !== undefined && v !== null && v !== "") return v;
  }
  return undefined;
};

/** `/orders/123/items/9f1c…` → `/orders/:id/items/:id` (query string dropped). */
export function normaliseRoute(path: string): string {
  const p = path.split("?", 1)[0]!.replace(/^https?:\/\/[^/]+/, "");
  return (
    p
      .split("/")
      .map((s) =>
        /^\d+$/.test(s) || /^[0-9a-f-]{16,}$/i.test(s) || /^[0-9A-HJKMNP-TV-Z]{26}$/.test(s)
          ? ":id"
          : s,
      )
      .join("/") || "/"
  );
}

/** `GET /orders` → `/orders` when the route field already names the method (it is shown once). */
function withoutMethod(route: string, method: string): string {
  const m = /^([A-Za-z]+)\s+(\S.*)$/.exec(route.trim());
  return m && m[1]!.toUpperCase() === method ? m[2]! : route;
}

/** The HTTP facts of a record, or null when it is not a request log. */
export function httpFacts(row: Row): HttpFacts | null {
  const method = pick(row, ["method", "req.method", "request.method", "http.method"]);
  const status = Number(
    pick(row, ["status", "statusCode", "res.statusCode", "response.status", "http.status"]),
  );
  const duration = Number(
    pick(row, ["durationMs", "duration", "responseTime", "latencyMs", "elapsedMs", "ms"]),
  );
  if (typeof method !== "string" || !Number.isFinite(status) || !Number.isFinite(duration))
    return null;
  const rawRoute = pick(row, ["route", "path", "url", "req.url", "request.url", "http.route"]);
  const verb = method.toUpperCase();
  return {
    method: verb,
    status,
    durationMs: duration,
    route:
      typeof rawRoute === "string" ? normaliseRoute(withoutMethod(rawRoute, verb)) : "(unknown)",
  };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

/**
 * @example httpStats(rows).routes[0] // the slowest route by p95
 */
export function httpStats(rows: Row[]): HttpStats {
  const cls = new Map<string, number>();
  const status = new Map<number, number>();
  const routes = new Map<string, { d: number[]; e: number }>();
  let total = 0;
  for (const row of rows) {
    const f = httpFacts(row);
    if (!f) continue;
    total++;
    const c = `${Math.floor(f.status / 100)}xx`;
    cls.set(c, (cls.get(c) ?? 0) + 1);
    status.set(f.status, (status.get(f.status) ?? 0) + 1);
    const key = `${f.method} ${f.route}`;
    let r = routes.get(key);
    if (!r) routes.set(key, (r = { d: [], e: 0 }));
    r.d.push(f.durationMs);
    if (f.status >= 500) r.e++;
  }
  const routeStats = [...routes].map(([route, r]) => {
    const d = r.d.sort((a, b) => a - b);
    return {
      route,
      count: d.length,
      errors5xx: r.e,
      p50: quantile(d, 0.5),
      p95: quantile(d, 0.95),
      max: d[d.length - 1] ?? NaN,
    };
  });
  return {
    total,
    byClass: ["2xx", "3xx", "4xx", "5xx"].map((c) => ({ cls: c, count: cls.get(c) ?? 0 })),
    byStatus: [...status]
      .map(([s, count]) => ({ status: s, count }))
      .sort((a, b) => a.status - b.status),
    routes: routeStats.sort((a, b) => b.p95 - a.p95),
  };
}
