/**
 * Studio test data: a realistic, deterministic workload (HTTP requests, cache
 * misses, slow queries, errors with stacks into a project) written through the
 * real logger, and a project directory with the files those callers name, plus
 * a file outside it reached by `../` and by a symlink.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface SampleRecord {
  timestamp: string;
  level: string;
  message: string;
  service: string;
  caller?: string;
  data: Record<string, unknown>;
  error?: { name: string; message: string; stack?: string; code?: string };
}

/** Line numbers the callers point at; the project files put recognisable text there. */
export const LINES = {
  ordersBug: 42,
  ordersCreate: 61,
  server: 27,
  cache: 14,
  query: 31,
  payments: 58,
} as const;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ROUTES = ["/orders", "/orders/:id", "/payments", "/users/:id", "/health", "/cart/items"];
const SERVICES = ["gateway", "orders", "payments"];

/**
 * `count` records spread evenly over `[fromMs, toMs)`, each with a unique `data.seq`.
 * @example sampleWorkload(Date.now() - 3_600_000, Date.now(), 2000, "/repo")
 */
export function sampleWorkload(
  fromMs: number,
  toMs: number,
  count: number,
  projectDir: string,
  seed = 7,
): SampleRecord[] {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const step = (toMs - fromMs) / count;
  const out: SampleRecord[] = [];
  for (let i = 0; i < count; i++) {
    const ts = new Date(Math.floor(fromMs + (i + 0.5) * step)).toISOString();
    const service = pick(SERVICES);
    const r = rand();
    const base = { timestamp: ts, service, data: { seq: i } as Record<string, unknown> };
    if (r < 0.55) {
      const route = pick(ROUTES);
      const path = route.replace(":id", String(1000 + Math.floor(rand() * 9000)));
      const method =
        route === "/health" ? "GET" : pick(["GET", "GET", "GET", "POST", "PUT", "DELETE"]);
      const roll = rand();
      const status =
        roll < 0.86
          ? method === "POST"
            ? 201
            : 200
          : roll < 0.9
            ? 304
            : roll < 0.96
              ? pick([400, 404, 409, 422])
              : pick([500, 502, 503]);
      const durationMs = Math.round(
        (route === "/payments" ? 180 : 25) * (0.4 + rand() * 1.6) * (rand() < 0.04 ? 12 : 1),
      );
      out.push({
        ...base,
        level: status >= 500 ? "error" : status >= 400 ? "warning" : "info",
        message: `${method} ${path} ${status} ${durationMs}ms`,
        caller: `src/http/server.ts:${LINES.server}`,
        data: {
          ...base.data,
          method,
          path,
          // Some frameworks log the route with its method ("GET /orders/:id"): shown once.
          ...(i % 3 === 0 ? { route: `${method} ${route}` } : {}),
          status,
          durationMs,
          userId: `u_${Math.floor(rand() * 300)}`,
        },
      });
    } else if (r < 0.67) {
      out.push({
        ...base,
        level: "debug",
        message: "cache miss",
        caller: `src/cache.ts:${LINES.cache}`,
        data: { ...base.data, key: `order:${Math.floor(rand() * 500)}`, store: "redis" },
      });
    } else if (r < 0.75) {
      out.push({
        ...base,
        level: "warning",
        message: "slow query",
        caller: `src/db/query.ts:${LINES.query}`,
        data: {
          ...base.data,
          table: pick(["orders", "payments", "users"]),
          ms: 300 + Math.floor(rand() * 2500),
        },
      });
    } else if (r < 0.81) {
      out.push({
        ...base,
        service: "orders",
        level: "error",
        message: "failed to load order",
        caller: `src/routes/orders.ts:${LINES.ordersBug}`,
        data: { ...base.data, orderId: `ord_${Math.floor(rand() * 900)}` },
        error: {
          name: "TypeError",
          message: "Cannot read properties of undefined (reading 'id')",
          stack: `TypeError: Cannot read properties of undefined (reading 'id')\n    at loadOrder (${projectDir}/src/routes/orders.ts:${LINES.ordersBug}:31)\n    at handle (${projectDir}/src/http/server.ts:${LINES.server}:12)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`,
        },
      });
    } else if (r < 0.84) {
      out.push({
        ...base,
        service: "payments",
        level: "error",
        message: "payment provider timeout",
        caller: `src/payments/client.ts:${LINES.payments}`,
        data: { ...base.data, provider: "acme-pay", attempt: 1 + Math.floor(rand() * 3) },
        error: {
          name: "TimeoutError",
          message: "provider did not answer within 5000 ms",
          code: "ETIMEDOUT",
        },
      });
    } else if (r < 0.845) {
      out.push({
        ...base,
        level: "critical",
        message: "database connection lost",
        data: { ...base.data, host: "db-1" },
        error: { name: "ConnectionError", message: "connection terminated unexpectedly" },
      });
    } else if (r < 0.93) {
      out.push({
        ...base,
        service: "orders",
        level: "info",
        message: "order created",
        caller: `src/routes/orders.ts:${LINES.ordersCreate}`,
        data: {
          ...base.data,
          orderId: `ord_${Math.floor(rand() * 900)}`,
          amount: Math.round(rand() * 20000) / 100,
          currency: "EUR",
        },
      });
    } else {
      out.push({
        ...base,
        service: "payments",
        level: "success",
        message: "payment captured",
        data: { ...base.data, amount: Math.round(rand() * 20000) / 100, currency: "EUR" },
      });
    }
  }
  return out;
}

/** Marker records whose callers exercise source context: inside, `../` outside, symlink outside. */
export function markerRecords(atMs: number, seqBase: number): SampleRecord[] {
  const ts = (d: number) => new Date(atMs + d).toISOString();
  return [
    {
      timestamp: ts(0),
      level: "error",
      service: "orders",
      message: "marker inside project",
      caller: `src/routes/orders.ts:${LINES.ordersBug}`,
      data: { seq: seqBase, marker: "inside" },
    },
    {
      timestamp: ts(1),
      level: "warning",
      service: "orders",
      message: "marker dotdot outside",
      caller: "../outside/secret.ts:3",
      data: { seq: seqBase + 1, marker: "dotdot" },
    },
    {
      timestamp: ts(2),
      level: "warning",
      service: "orders",
      message: "marker symlink outside",
      caller: "src/linked.ts:2",
      data: { seq: seqBase + 2, marker: "symlink" },
    },
  ];
}

function numbered(
  total: number,
  marks: Record<number, string>,
  fill: (n: number) => string,
): string {
  return Array.from({ length: total }, (_, i) => marks[i + 1] ?? fill(i + 1)).join("\n") + "\n";
}

/**
 * Creates `<root>/project` (the attached project) and `<root>/outside` (a secret
 * beyond it, linked from `project/src/linked.ts`). Returns both paths.
 */
export function writeProject(root: string): { projectDir: string; outsideDir: string } {
  const projectDir = join(root, "project");
  const outsideDir = join(root, "outside");
  for (const d of ["src/routes", "src/http", "src/db", "src/payments"])
    mkdirSync(join(projectDir, d), { recursive: true });
  mkdirSync(outsideDir, { recursive: true });
  const filler = (n: number) => `  // orders.ts line ${n}`;
  writeFileSync(
    join(projectDir, "src/routes/orders.ts"),
    numbered(
      90,
      {
        1: 'import { db } from "../db/query.js";',
        [LINES.ordersBug - 1]: "export async function loadOrder(id: string) {",
        [LINES.ordersBug]: "  const customerId = order.customer.id; // STUDIO-E2E-BUG-LINE",
        [LINES.ordersCreate]: '  logger.info("order created", { orderId, amount, currency });',
      },
      filler,
    ),
  );
  writeFileSync(
    join(projectDir, "src/http/server.ts"),
    numbered(
      60,
      {
        [LINES.server]:
          "  logger.info(`${req.method} ${path} ${res.statusCode} ${ms}ms`, { method, path, status, durationMs });",
      },
      (n) => `  // server.ts line ${n}`,
    ),
  );
  writeFileSync(
    join(projectDir, "src/cache.ts"),
    numbered(
      30,
      { [LINES.cache]: '  if (!hit) logger.debug("cache miss", { key, store: "redis" });' },
      (n) => `// cache.ts line ${n}`,
    ),
  );
  writeFileSync(
    join(projectDir, "src/db/query.ts"),
    numbered(
      50,
      { [LINES.query]: '  if (ms > 300) logger.warn("slow query", { table, ms });' },
      (n) => `// query.ts line ${n}`,
    ),
  );
  writeFileSync(
    join(projectDir, "src/payments/client.ts"),
    numbered(
      80,
      {
        [LINES.payments]:
          "  throw new TimeoutError(`provider did not answer within ${timeoutMs} ms`);",
      },
      (n) => `// client.ts line ${n}`,
    ),
  );
  writeFileSync(join(projectDir, ".env"), "SECRET=do-not-show\n");
  writeFileSync(
    join(outsideDir, "secret.ts"),
    '// outside the project\nexport const secret = "OUTSIDE-SECRET-CONTENT";\nexport const more = 1;\n',
  );
  symlinkSync(join(outsideDir, "secret.ts"), join(projectDir, "src/linked.ts"));
  return { projectDir, outsideDir };
}
