/**
 * The demo's sample service: a few small source files written next to the demo
 * store so Studio can show source context for the records' `caller` lines.
 */

export const DEMO_FILES: Record<string, string> = {
  "src/routes/orders.ts": `import { db } from "../db.js";
import { charge } from "../payments.js";
import { log } from "../log.js";

export async function listOrders(req: Request) {
  const started = Date.now();
  const rows = await db.query("select * from orders where customer_id = $1 limit 50", [req.customerId]);
  log.info("orders listed", { route: "GET /orders", status: 200, durationMs: Date.now() - started, count: rows.length });
  return rows;
}

export async function getOrder(req: Request) {
  const order = await db.one("select * from orders where id = $1", [req.params.id]);
  if (!order) {
    log.warn("order not found", { route: "GET /orders/:id", status: 404, orderId: req.params.id });
    return notFound();
  }
  return order;
}

export async function createOrder(req: Request) {
  const started = Date.now();
  const order = await db.insert("orders", req.body);
  try {
    await charge(order);
  } catch (err) {
    log.error("payment failed", { route: "POST /orders", status: 402, orderId: order.id, err });
    throw err;
  }
  log.success("order created", { route: "POST /orders", status: 201, durationMs: Date.now() - started, orderId: order.id });
  return order;
}
`,
  "src/payments.ts": `export class PaymentDeclinedError extends Error {
  constructor(readonly code: string, readonly orderId: string) {
    super(\`card declined: \${code}\`);
    this.name = "PaymentDeclinedError";
  }
}

export async function charge(order: { id: string; totalCents: number }) {
  const res = await fetch("https://payments.internal/charge", {
    method: "POST",
    body: JSON.stringify({ orderId: order.id, amount: order.totalCents }),
  });
  if (res.status === 402) {
    const body = await res.json();
    throw new PaymentDeclinedError(body.code, order.id);
  }
  return res.json();
}
`,
  "src/db.ts": `import { Pool } from "pg";

export class QueryTimeoutError extends Error {
  name = "QueryTimeoutError";
}

const pool = new Pool({ max: 10, statement_timeout: 2000 });

export const db = {
  async query(sql: string, params: unknown[]) {
    const client = await pool.connect();
    try {
      const res = await client.query(sql, params);
      return res.rows;
    } catch (err) {
      throw new QueryTimeoutError("query exceeded 2000 ms", { cause: err });
    } finally {
      client.release();
    }
  },
};
`,
  "src/worker.ts": `import { log } from "./log.js";

export async function sendReceipts(batch: { id: string }[]) {
  for (const item of batch) {
    log.debug("receipt queued", { job: "receipts", orderId: item.id });
  }
  log.info("receipts sent", { job: "receipts", count: batch.length });
}
`,
};
