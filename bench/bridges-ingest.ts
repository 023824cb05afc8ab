/**
 * Ingestion benchmark: records/s accepted by `createIngestHandler`
 * (Node form) from 50 concurrent clients (autocannon in its own process, loopback),
 * each request an NDJSON body of 100 records with a token, against a reference
 * handler in the same run that reads and JSON-parses the same body but keeps
 * nothing (the HTTP + parse ceiling). The logger writes to a local-directory store.
 * Usage: node --import jiti/register bench/bridges-ingest.ts [--rounds 3] [--seconds 3]
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../src/index.js";
import { createIngestHandler } from "../src/ingest.js";
import { positiveArg } from "./_shared.js";
import { alternate, autocannon, median, min } from "./_bridges.js";

const ROUNDS = positiveArg("rounds", 3);
const SECONDS = positiveArg("seconds", 3);
const PER_REQUEST = 100;
const TOKEN = "bench-token-123456";

const body =
  Array.from({ length: PER_REQUEST }, (_, i) =>
    JSON.stringify({
      timestamp: new Date().toISOString(),
      level: "info",
      message: "page event",
      data: { id: i, page: "/cart", ms: i * 3 },
    }),
  ).join("\n") + "\n";

function reference(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    let n = 0;
    for (const line of Buffer.concat(chunks).toString("utf8").split("\n"))
      if (line) n += JSON.parse(line) ? 1 : 0;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ accepted: n }));
  });
}

const dir = mkdtempSync(join(tmpdir(), "stowage-bench-ingest-"));
const logger = createLogger({
  console: false,
  destination: "local",
  local: { path: dir, delivery: { maxQueueBytes: "512MiB" } },
});
const ingest = createIngestHandler(logger, { auth: { token: TOKEN }, maxRecords: 1000 });

async function measure(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<number> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`;
  try {
    const rps = await autocannon(url, {
      seconds: SECONDS,
      method: "POST",
      body,
      headers: { "x-stowage-token": TOKEN, "content-type": "application/x-ndjson" },
    });
    return rps * PER_REQUEST;
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
}

await measure(reference); // warm-up
const s = await alternate(ROUNDS, {
  reference: () => measure(reference),
  ingest: () => measure(ingest),
});
const st = ingest.stats();
console.log(
  `\n-- ingestion: NDJSON bodies of ${PER_REQUEST} records, autocannon -c 50 -d ${SECONDS}, ${ROUNDS} alternating rounds`,
);
console.log(
  `read + parse only (ref)   ${min(s.reference).toFixed(0)} / ${median(s.reference).toFixed(0)} records/s (min / median)`,
);
console.log(
  `createIngestHandler       ${min(s.ingest).toFixed(0)} / ${median(s.ingest).toFixed(0)} records/s`,
);
console.log(
  `ratio                     ${(min(s.ingest) / min(s.reference)).toFixed(2)}× / ${(median(s.ingest) / median(s.reference)).toFixed(2)}×`,
);
console.log(
  `handler counts            accepted ${st.accepted.toLocaleString()}, refused by the logger ${st.rejected.refused.toLocaleString()}`,
);
const r = await logger.close({ timeoutMs: 120_000 });
console.log(
  `logger                    delivered ${Object.values(r.destinations)[0]!.delivered.toLocaleString()}, ok=${r.ok}`,
);
rmSync(dir, { recursive: true, force: true });
