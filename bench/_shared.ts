/** Helpers shared by the benchmarks (not a benchmark itself: bench/run.ts skips `_` files). */

/**
 * `--name N` from the command line, a positive whole number, or `fallback`.
 * Unknown flags are ignored: `npm run bench` passes every flag to every benchmark.
 */
export function positiveArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} needs a positive whole number`);
  return v;
}

/** The six-field payload of a request log record, the same in every write-path benchmark. */
export function requestFields(i: number) {
  return {
    route: "/api/orders/:id",
    method: "GET",
    status: 200,
    durationMs: (i * 37) % 900,
    userId: `u-${i % 5000}`,
    requestId: `r-${i}`,
  };
}
