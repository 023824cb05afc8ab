/**
 * The demo workload (SPEC §6): a small orders service — routes with latencies
 * and status codes, warnings, errors with stacks and causes, a background worker
 * — spread over the last few hours, deterministic for a given seed.
 */
import type { LogRecord } from "../record/record.js";

interface Route {
  route: string;
  caller: string;
  weight: number;
  p50: number;
}

const ROUTES: Route[] = [
  { route: "GET /orders", caller: "src/routes/orders.ts:8", weight: 40, p50: 35 },
  { route: "GET /orders/:id", caller: "src/routes/orders.ts:14", weight: 25, p50: 12 },
  { route: "POST /orders", caller: "src/routes/orders.ts:29", weight: 15, p50: 180 },
  { route: "GET /health", caller: "src/routes/orders.ts:8", weight: 10, p50: 2 },
];

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T extends { weight: number }>(items: T[], r: number): T {
  const total = items.reduce((s, i) => s + i.weight, 0);
  let x = r * total;
  for (const i of items) if ((x -= i.weight) < 0) return i;
  return items[items.length - 1]!;
}

function stackFor(name: string, message: string, frames: string[]): string {
  return `${name}: ${message}\n${frames.map((f) => `    at ${f}`).join("\n")}`;
}

export interface WorkloadOptions {
  /** End of the workload (default now). */
  endMs: number;
  /** Hours covered, back from endMs. */
  hours: number;
  /** Records per hour (approximate). */
  perHour: number;
  seed?: number;
}

/** Yields records oldest first. */
export function* demoRecords(o: WorkloadOptions): Generator<LogRecord> {
  const rand = prng(o.seed ?? 42);
  const total = o.hours * o.perHour;
  const start = o.endMs - o.hours * 3_600_000;
  const step = (o.endMs - start) / total;
  for (let i = 0; i < total; i++) {
    const ts = Math.floor(start + i * step + rand() * step);
    const requestId = `req-${(i * 7919).toString(36)}`;
    const r = rand();
    if (r < 0.04) {
      yield {
        timestamp: new Date(ts).toISOString(),
        level: "debug",
        message: "receipt queued",
        service: "orders-worker",
        caller: "src/worker.ts:5",
        data: { job: "receipts", orderId: `o-${1000 + (i % 500)}` },
      };
      continue;
    }
    const route = pick(ROUTES, rand());
    const durationMs = Math.round(
      route.p50 * Math.exp((rand() - 0.5) * 2.2) * (rand() < 0.02 ? 20 : 1),
    );
    const base = {
      service: "orders-api",
      bindings: { requestId },
      traceId: requestId.replace("req-", "t"),
    };
    const e = rand();
    if (route.route === "POST /orders" && e < 0.12) {
      const code = e < 0.06 ? "insufficient_funds" : "expired_card";
      yield {
        timestamp: new Date(ts).toISOString(),
        level: "error",
        message: "payment failed",
        ...base,
        caller: "src/routes/orders.ts:26",
        data: {
          route: route.route,
          method: "POST",
          status: 402,
          durationMs,
          orderId: `o-${2000 + i}`,
        },
        error: {
          name: "PaymentDeclinedError",
          message: `card declined: ${code}`,
          code,
          stack: stackFor("PaymentDeclinedError", `card declined: ${code}`, [
            "charge (src/payments.ts:15:11)",
            "createOrder (src/routes/orders.ts:24:5)",
          ]),
        },
      };
    } else if (route.route === "GET /orders" && e < 0.03) {
      yield {
        timestamp: new Date(ts).toISOString(),
        level: "critical",
        message: "database query timed out",
        ...base,
        caller: "src/db.ts:17",
        data: { route: route.route, method: "GET", status: 503, durationMs: 2000 + durationMs },
        error: {
          name: "QueryTimeoutError",
          message: "query exceeded 2000 ms",
          stack: stackFor("QueryTimeoutError", "query exceeded 2000 ms", [
            "Object.query (src/db.ts:17:13)",
            "listOrders (src/routes/orders.ts:7:27)",
          ]),
          cause: {
            name: "Error",
            message: "canceling statement due to statement timeout",
            code: "57014",
          },
        },
      };
    } else if (route.route === "GET /orders/:id" && e < 0.08) {
      yield {
        timestamp: new Date(ts).toISOString(),
        level: "warning",
        message: "order not found",
        ...base,
        caller: "src/routes/orders.ts:15",
        data: {
          route: route.route,
          method: "GET",
          status: 404,
          durationMs,
          orderId: `o-${9000 + (i % 50)}`,
        },
      };
    } else {
      const [method] = route.route.split(" ");
      const created = route.route === "POST /orders";
      yield {
        timestamp: new Date(ts).toISOString(),
        level: created ? "success" : "info",
        message: created ? "order created" : "request completed",
        ...base,
        caller: route.caller,
        data: {
          route: route.route,
          method,
          status: created ? 201 : 200,
          durationMs,
          ...(created ? { orderId: `o-${2000 + i}`, totalCents: Math.round(rand() * 20_000) } : {}),
        },
      };
    }
  }
}
