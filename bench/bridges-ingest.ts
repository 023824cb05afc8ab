/**
 * Ingestion benchmark: records/s accepted by `createIngestHandler`
 * (Node form) from 50 concurrent clients (autocannon in its own process, loopback),
 * each request an NDJSON body of 100 records with a token, against a reference
 * handler in the same run that reads and JSON-parses the same body but keeps
 * nothing (the HTTP + parse ceiling). The logger writes to a local-directory store.
 *
 * Then the server's CPU per MiB of body (issue 31 §1: a hostile 1 MiB body of `x` lines
 * cost 3.25 s, a valid one 0.08–0.32 s): a client in its own process posts each body
 * `--requests` times in sequence, and `process.cpuUsage()` (all of the server's threads)
 * is read around the run; hostile shapes are printed as a ratio against the valid body.
 * Usage: node --import jiti/register bench/bridges-ingest.ts [--rounds 3] [--seconds 3] [--requests 10]
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
// -- CPU per MiB: a valid body against hostile ones (issue 31 §1)
const REQUESTS = positiveArg("requests", 10);
const MiB = 1024 * 1024;
const cpuIngest = createIngestHandler(logger, { auth: { token: TOKEN }, maxBodyBytes: 2 * MiB });
const valid1MiB = Array.from(
  { length: 1000 },
  (_, i) =>
    JSON.stringify({
      timestamp: new Date().toISOString(),
      level: "info",
      message: "page event",
      data: { id: i, page: "/cart", pad: "p".repeat(960) },
    }) + "\n",
).join("");
const SHAPES = {
  "valid (1,000 records)": valid1MiB,
  "`x` lines": "x\n".repeat(MiB / 2),
  "`{` lines (each a failing parse)": "{\n".repeat(MiB / 2),
  "[1,1,…] array": "[" + "1,".repeat(MiB / 2 - 1) + "1]",
  "[[[…]]] nested 500k deep": "[".repeat(MiB / 2) + "]".repeat(MiB / 2),
  "16 KiB records of 5,000 `[]`": `{"data":[${"[],".repeat(5_000)}[]]}\n`.repeat(69),
  "[{},{},…] array (349,525)": "[" + "{},".repeat(MiB / 3 - 1) + "{}]",
  '{"message":"m"} × 65,536': '{"message":"m"}\n'.repeat(MiB / 16),
};
type Shape = keyof typeof SHAPES;

/** A client in its own process: posts the body in `file` `n` times in sequence; prints the statuses. */
const CLIENT = `
const [url, token, file, n] = process.argv.slice(1);
const body = require("node:fs").readFileSync(file);
const statuses = {};
(async () => {
  for (let i = 0; i < Number(n); i++) {
    const res = await fetch(url, { method: "POST", body, headers: { "x-stowage-token": token } });
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
  process.stdout.write(JSON.stringify(statuses));
})();`;
const statusesSeen: Partial<Record<Shape, string>> = {};

/** Server CPU (ms, all threads) per MiB of body, for REQUESTS posts of `shape`. */
async function cpuPerMiB(shape: Shape): Promise<number> {
  const body = SHAPES[shape];
  const file = join(dir, "body");
  writeFileSync(file, body);
  const server = createServer(cpuIngest);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`;
  const before = process.cpuUsage();
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", CLIENT, url, TOKEN, file, String(REQUESTS)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let text = "";
    child.stdout.on("data", (c: Buffer) => (text += c));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(text) : reject(new Error(`client exit ${code}`)),
    );
  });
  const used = process.cpuUsage(before);
  await new Promise<void>((r) => server.close(() => r()));
  statusesSeen[shape] = out;
  // What a valid body handed the logger is delivered outside the measured window.
  await logger.flush({ timeoutMs: 120_000 });
  const mib = (REQUESTS * Buffer.byteLength(body)) / MiB;
  return (used.user + used.system) / 1000 / mib;
}

await cpuPerMiB("valid (1,000 records)"); // warm-up
const cpu = await alternate(
  ROUNDS,
  Object.fromEntries(Object.keys(SHAPES).map((k) => [k, () => cpuPerMiB(k as Shape)])) as Record<
    Shape,
    () => Promise<number>
  >,
);
const ref = cpu["valid (1,000 records)"];
console.log(
  `\n-- server CPU per MiB of body (all threads), ${REQUESTS} sequential posts per round, ${ROUNDS} alternating rounds`,
);
for (const shape of Object.keys(SHAPES) as Shape[]) {
  const xs = cpu[shape];
  console.log(
    `${shape.padEnd(34)} ${min(xs).toFixed(1)} / ${median(xs).toFixed(1)} ms/MiB (min / median), ` +
      `${(median(xs) / median(ref)).toFixed(3)}× valid; answers ${statusesSeen[shape]}`,
  );
}

const r = await logger.close({ timeoutMs: 120_000 });
console.log(
  `logger                    delivered ${Object.values(r.destinations)[0]!.delivered.toLocaleString()}, ok=${r.ok}`,
);
rmSync(dir, { recursive: true, force: true });
