import { describe, expect, it } from "vitest";
import { StowageError } from "../shared/errors.js";
import { parseRetryAfter } from "./classify-error.js";
import { attemptWithRetry, retryDelayMs, withRetry } from "./retry-policy.js";

const policy = { maxAttempts: 4, initialBackoffMs: 100, maxBackoffMs: 1_000 };
const slowDown = () =>
  Object.assign(new Error("slow"), { name: "SlowDown", $metadata: { httpStatusCode: 503 } });
const denied = () =>
  Object.assign(new Error("no"), { name: "AccessDenied", $metadata: { httpStatusCode: 403 } });
const internal = () =>
  Object.assign(new Error("x"), { name: "InternalError", $metadata: { httpStatusCode: 500 } });

describe("retry policy (SPEC §3.5 full-jitter backoff)", () => {
  it("doubles the ceiling per attempt up to the cap, jitter from the injected random", () => {
    const top = { ...policy, random: () => 0.999999 };
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(top, n, { kind: "retryable" }))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(retryDelayMs({ ...policy, random: () => 0 }, 3, { kind: "retryable" })).toBe(0);
  });
  it("throttling multiplies the ceiling; Retry-After is a floor capped by the throttled cap", () => {
    const half = { ...policy, random: () => 0.5 };
    expect(retryDelayMs(half, 2, { kind: "throttled" })).toBe(200);
    expect(retryDelayMs({ ...half, throttleFactor: 4 }, 2, { kind: "throttled" })).toBe(400);
    expect(retryDelayMs(half, 1, { kind: "throttled", retryAfterMs: 700 })).toBe(700);
    expect(retryDelayMs(half, 1, { kind: "throttled", retryAfterMs: 60_000 })).toBe(2_000);
  });
  it("parses Retry-After in seconds and as an HTTP date", () => {
    expect(parseRetryAfter({ "retry-after": "3" })).toBe(3000);
    expect(parseRetryAfter({ "retry-after": new Date(10_000).toUTCString() }, 4_000)).toBe(6_000);
    expect(parseRetryAfter({ "retry-after": "soon" })).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
  it("retries retryable errors until success and reports each retry", async () => {
    const seen: number[] = [];
    let calls = 0;
    const value = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw calls === 1 ? slowDown() : internal();
        return "ok";
      },
      { ...policy, initialBackoffMs: 1, random: () => 0 },
      { onRetry: (_e, attempt) => seen.push(attempt) },
    );
    expect(value).toBe("ok");
    expect(seen).toEqual([1, 2]);
  });
  it("stops at once on a permanent error and after maxAttempts on retryable ones", async () => {
    let calls = 0;
    const perm = await attemptWithRetry(async () => {
      calls++;
      throw denied();
    }, policy);
    expect(perm).toMatchObject({
      ok: false,
      attempts: 1,
      exhausted: false,
      error: { category: "auth" },
    });
    calls = 0;
    const out = await attemptWithRetry(
      async () => {
        calls++;
        throw internal();
      },
      { ...policy, initialBackoffMs: 1 },
    );
    expect(out).toMatchObject({ ok: false, attempts: 4, exhausted: true });
    expect(calls).toBe(4);
  });
  it("an abort during the wait ends the loop with an aborted outcome", async () => {
    const ac = new AbortController();
    const p = attemptWithRetry(
      async () => {
        throw internal();
      },
      { ...policy, initialBackoffMs: 10_000, random: () => 0.9 },
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 10);
    const out = await p;
    expect(out).toMatchObject({ ok: false, exhausted: false, error: { category: "aborted" } });
    await expect(
      withRetry(async () => {
        throw new StowageError("usage", "bad");
      }, policy),
    ).rejects.toThrow("bad");
  });
});
