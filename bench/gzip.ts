/**
 * gzip settings for the v1 body (SPEC §3.4): what each costs a record and what it saves in
 * bytes, against the encoder's default (level 6), on two kinds of batch of ~1 MiB (the
 * default maxBatchBytes):
 *
 * - request: the framework adapters' request record (a fresh UUID a line, method, route,
 *   path, status, duration, user agent, client ip);
 * - log: an application record with the six fields of `requestFields` (the write-path
 *   benchmarks' payload).
 *
 * Settings: level 6 (the default: the reference), level 6 with `memLevel: 9`, level 6 with
 * `strategy: Z_FILTERED`, level 5, level 1. Each compresses the same bytes with `gzipSync`
 * (the encoder's zlib; it runs the same code on the thread pool).
 *
 * Timed (default): CPU per record (the process's, all threads; `gzipSync` runs on the main one),
 * min and median of `--rounds` alternating rounds of `--repeat` compressions each.
 * `--instructions` (needs valgrind): each setting in a child process under callgrind, run
 * once compressing nothing and once compressing `--repeat` times; the difference over the
 * records compressed is its instructions a record — the same on a busy machine.
 *
 * Usage: node --import jiti/register bench/gzip.ts [--rounds 5] [--repeat 20] [--instructions]
 */
import { spawnSync } from "node:child_process";
import { constants, gzipSync, type ZlibOptions } from "node:zlib";
import { positiveArg, requestFields, rounds, summary } from "./_shared.js";

const ROUNDS = positiveArg("rounds", 5);
const REPEAT = positiveArg("repeat", 20);
const INSTRUCTIONS = process.argv.includes("--instructions");

const SETTINGS: Record<string, ZlibOptions> = {
  "level 6 (default)": { level: 6 },
  "level 6, memLevel 9": { level: 6, memLevel: 9 },
  "level 6, Z_FILTERED": { level: 6, strategy: constants.Z_FILTERED },
  "level 5": { level: 5 },
  "level 1": { level: 1 },
};
const REFERENCE = "level 6 (default)";

/**
 * The batch of one kind: NDJSON lines up to ~1 MiB, from a seeded generator (the same bytes
 * in every process). Its source is also run in the callgrind children, so it stands alone.
 */
function batch(kind: string, fields: (i: number) => Record<string, unknown>): Buffer {
  let seed = 1;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const hex = (n: number) =>
    Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(rnd() * 16)]).join("");
  const lines: string[] = [];
  let bytes = 0;
  let t = Date.UTC(2026, 11, 5, 10);
  for (let i = 0; bytes < 1024 * 1024 - 1024; i++) {
    t += Math.floor(rnd() * 3);
    const h = hex(32);
    const line =
      kind === "request"
        ? JSON.stringify({
            timestamp: new Date(t).toISOString(),
            level: "info",
            message: "GET /orders/:id 200",
            service: "api",
            requestId: `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
            data: {
              method: "GET",
              route: "/orders/:id",
              path: `/orders/${Math.floor(rnd() * 100000)}`,
              status: 200,
              durationMs: Math.round(rnd() * 50000) / 1000,
              userAgent:
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0 Safari/537.36",
              ip: `10.0.${Math.floor(rnd() * 8)}.${Math.floor(rnd() * 250)}`,
            },
          })
        : JSON.stringify({
            timestamp: new Date(t).toISOString(),
            level: "info",
            message: "request handled",
            service: "api",
            data: fields(i),
          });
    lines.push(line);
    bytes += line.length + 1;
  }
  return Buffer.from(`${lines.join("\n")}\n`);
}

const KINDS = ["request", "log"] as const;
const data = Object.fromEntries(KINDS.map((k) => [k, batch(k, requestFields)]));
const recordsOf = (buf: Buffer) => buf.toString("latin1").split("\n").length - 1;

/** Instructions a record of one setting on one kind, under callgrind (see the header). */
function countedPerRecord(kind: string, options: ZlibOptions): number {
  const total = (repeat: number): number => {
    const script = `
      const { gzipSync } = await import("node:zlib");
      const requestFields = ${requestFields.toString()};
      const batch = ${batch.toString()};
      const buf = batch(${JSON.stringify(kind)}, requestFields);
      for (let i = 0; i < ${repeat}; i++) gzipSync(buf, ${JSON.stringify(options)});`;
    const r = spawnSync(
      "valgrind",
      [
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        process.execPath,
        "--single-threaded",
        "--input-type=module",
        "-e",
        script,
      ],
      { encoding: "utf8" },
    );
    const m = /Collected : ([\d,]+)/.exec(r.stderr ?? "");
    if (r.error || !m)
      throw new Error(
        `valgrind: ${r.error ? r.error.message : r.stderr.slice(-500)} (--instructions needs valgrind: apt-get install valgrind)`,
      );
    return Number(m[1]!.replace(/,/g, ""));
  };
  return (total(REPEAT) - total(0)) / (REPEAT * recordsOf(data[kind]!));
}

console.log(
  `-- gzip settings for the v1 body: ~1 MiB batches, ${INSTRUCTIONS ? `instructions a record (callgrind, ${REPEAT} compressions less none)` : `CPU ns a record (process), min / median of ${ROUNDS} alternating rounds of ${REPEAT} compressions`}; ratio = NDJSON bytes ÷ gzip bytes`,
);
for (const kind of KINDS) {
  const buf = data[kind]!;
  const records = recordsOf(buf);
  console.log(
    `\n${kind} records: ${records} a batch, ${(buf.length / records).toFixed(0)} bytes a record`,
  );
  const ratio = (o: ZlibOptions) => buf.length / gzipSync(buf, o).length;
  let cost: Record<string, { min: number; median: number }>;
  if (INSTRUCTIONS) {
    cost = {};
    for (const [name, o] of Object.entries(SETTINGS)) {
      const n = countedPerRecord(kind, o);
      cost[name] = { min: n, median: n };
    }
  } else {
    const samples = await rounds(
      ROUNDS,
      Object.fromEntries(
        Object.entries(SETTINGS).map(([name, o]) => [
          name,
          async () => {
            const c0 = process.cpuUsage();
            for (let i = 0; i < REPEAT; i++) gzipSync(buf, o);
            const c = process.cpuUsage(c0);
            return ((c.user + c.system) * 1000) / (REPEAT * records);
          },
        ]),
      ),
    );
    cost = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, summary(xs)]));
  }
  const ref = cost[REFERENCE]!;
  const refRatio = ratio(SETTINGS[REFERENCE]!);
  console.log(
    `${"setting".padEnd(22)} ${(INSTRUCTIONS ? "instr/record" : "ns/record min / med").padStart(20)} ${"÷ level 6".padStart(10)} ${"ratio".padStart(7)} ${"bytes ÷ level 6".padStart(16)}`,
  );
  for (const [name, o] of Object.entries(SETTINGS)) {
    const c = cost[name]!;
    const r = ratio(o);
    console.log(
      `${name.padEnd(22)} ${(INSTRUCTIONS ? c.median.toFixed(0) : `${c.min.toFixed(0)} / ${c.median.toFixed(0)}`).padStart(20)} ${`${(c.median / ref.median).toFixed(2)}×`.padStart(10)} ${r.toFixed(2).padStart(7)} ${`${(refRatio / r).toFixed(3)}×`.padStart(16)}`,
    );
  }
}
