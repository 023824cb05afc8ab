/**
 * SPEC §3.5 exactly-once delivery under faults injected by a real proxy in front
 * of MinIO: every record ends up in the bucket exactly once and flush() reports ok.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/index.js";
import {
  randomFaults,
  startFaultProxy,
  type FaultAction,
  type FaultProxy,
} from "./support/fault-proxy.js";
import { s3Config, s3Reader } from "./support/loggers.js";
import { minio, uniquePrefix } from "./support/minio.js";
import { idCounts, readBack } from "./support/read-back.js";

const N = 10_000;
const BATCH_RECORDS = 250;
const BATCHES = N / BATCH_RECORDS;

/**
 * The retry budget a scenario needs so that no batch exhausts it by chance.
 * An attempt can meet two faulted requests (a PUT, then the HEAD that confirms
 * a 412 after a dropped answer), so it fails with probability 1 - (1 - rate)^2;
 * the budget makes "some batch fails every attempt" rarer than one run in 10^6.
 */
function attemptsFor(rate: number): number {
  const failPerAttempt = 1 - (1 - rate) ** 2;
  return Math.ceil(Math.log(1e-6 / BATCHES) / Math.log(failPerAttempt)) + 1;
}
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
});

const scenarios: [string, FaultAction[], number][] = [
  ["503 SlowDown and 500 bursts", ["slowdown", "500"], 0.4],
  ["connection resets", ["reset"], 0.3],
  ["stalls past the per-attempt timeout", ["stall"], 0.25],
  ["responses dropped after the PUT landed (ambiguous success)", ["drop"], 0.4],
];

describe("§3.5 exactly-once under faults (10,000 records each)", () => {
  it.each(scenarios)(
    "%s",
    async (_name, actions, rate) => {
      const proxy = await startFaultProxy(
        minio().endpoint,
        randomFaults(rate, actions, { seed: 7, kinds: ["put", "head"] }),
      );
      proxies.push(proxy);
      const prefix = uniquePrefix("faults");
      const log = createLogger(
        s3Config(
          prefix,
          {
            maxBatchRecords: BATCH_RECORDS,
            requestTimeoutMs: 1_000,
            maxAttempts: attemptsFor(rate),
            initialBackoffMs: 20,
            maxBackoffMs: 300,
          },
          { endpoint: proxy.endpoint },
        ) as Parameters<typeof createLogger>[0],
      );
      for (let i = 0; i < N; i++) log.info("order event", { id: i, route: "/orders", ms: i % 97 });
      const res = await log.close({ timeoutMs: 120_000 });
      const dest = res.destinations.sink;
      expect(res.ok, JSON.stringify(res)).toBe(true);
      expect(dest).toMatchObject({ delivered: N, pending: 0, failure: null });
      const injected = Object.values(proxy.injected).reduce((a, b) => a + b, 0);
      expect(injected).toBeGreaterThan(5); // the faults really happened
      if (actions.includes("drop")) expect(proxy.injected.drop).toBeGreaterThan(0);

      const reader = s3Reader();
      const counts = idCounts(await readBack(reader, `${prefix}/`));
      reader.close();
      expect(counts.size).toBe(N);
      const dupes = [...counts.values()].filter((c) => c !== 1);
      expect(dupes).toEqual([]);
      expect(dest.objects).toBe(BATCHES);
    },
    180_000,
  );
});
