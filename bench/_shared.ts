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

/**
 * `--name value` from the command line, one of `choices`, or `fallback` when the flag is
 * absent; any other value is an error naming the choices.
 */
export function choiceArg<T extends string>(name: string, choices: readonly T[], fallback: T): T {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = process.argv[i + 1] as T;
  if (!choices.includes(v)) throw new Error(`--${name} needs one of: ${choices.join(", ")}`);
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

/**
 * Runs each named measurement once per round, alternating (a, b, c, a, b, c, …)
 * after one warm-up of each, so drift on a shared machine hits all alike.
 * @example const r = await rounds(3, { ref: () => measureRef(), ours: () => measureOurs() });
 */
export async function rounds(
  n: number,
  runs: Record<string, (round: number) => Promise<number>>,
): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const [name, run] of Object.entries(runs)) {
    await run(-1); // warm-up
    out[name] = [];
  }
  for (let k = 0; k < n; k++)
    for (const [name, run] of Object.entries(runs)) out[name]!.push(await run(k));
  return out;
}

/** min and median of samples. */
export function summary(xs: number[]): { min: number; median: number } {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return { min: s[0]!, median: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2 };
}
