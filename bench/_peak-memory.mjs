/**
 * Preloaded into a benchmarked process (`node --import ./bench/_peak-memory.mjs …`, through
 * NODE_OPTIONS): samples `process.memoryUsage()` every 50 ms and, when the process exits,
 * writes the sample with the highest RSS — V8's heap (committed and used), external memory
 * (ArrayBuffers among it) — as JSON to the file named by STOWAGE_BENCH_PEAK_FILE. It shows
 * what a peak RSS is made of; the peak itself is /usr/bin/time's (samples can miss it).
 * Does nothing without STOWAGE_BENCH_PEAK_FILE.
 */
import { writeFileSync } from "node:fs";

const file = process.env.STOWAGE_BENCH_PEAK_FILE;
if (file) {
  let peak = null;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    if (peak === null || m.rss > peak.rss) peak = { ...m, atS: process.uptime() };
  }, 50);
  timer.unref();
  process.on("exit", () => {
    if (peak !== null) writeFileSync(file, JSON.stringify(peak));
  });
}
