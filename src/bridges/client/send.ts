/**
 * One request of `stowage/client` and what its answer says: how many records
 * the server accepted, filtered (below its level) or refused, and which to send
 * again — the ones the endpoint names in `retry` (refused for capacity), or the
 * whole batch after a 429, a 5xx or a network error — with the server's
 * `Retry-After`. Browser APIs only.
 */

export interface SendResult {
  accepted: number;
  filtered: number;
  /** Refused for good: per-record rejections, or a whole request refused (401, 403, 413, 400). */
  refused: number;
  /** Answered 2xx without counts (not a Stowage endpoint): sent, outcome unknown. */
  unconfirmed: number;
  /** Indexes (into the batch) of the records to send again. */
  again: number[];
  /** The server's Retry-After, in ms (0 when absent). */
  waitMs: number;
}

/** The counted answer of `createIngestHandler`. */
interface Answer {
  accepted: number;
  filtered?: number;
  rejected: object;
  retry?: number[];
}

const all = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Posts `lines` (one record each) with fetch keepalive; never throws. */
export async function send(
  url: string,
  token: string | undefined,
  lines: readonly string[],
): Promise<SendResult> {
  const n = lines.length;
  const out: SendResult = {
    accepted: 0,
    filtered: 0,
    refused: 0,
    unconfirmed: 0,
    again: [],
    waitMs: 0,
  };
  let res: Response;
  const headers: Record<string, string> = { "content-type": "text/plain" };
  if (token) headers["x-stowage-token"] = token;
  try {
    res = await fetch(url, {
      method: "POST",
      body: lines.join("\n") + "\n",
      headers,
      keepalive: true,
    });
  } catch {
    return { ...out, again: all(n) }; // network error (or over the browser's keepalive quota)
  }
  out.waitMs = retryAfterMs(res.headers.get("retry-after"));
  const answer = await res.json().then(
    (a: unknown) => (isAnswer(a) ? a : null),
    () => null,
  );
  if (answer) {
    out.accepted = answer.accepted;
    out.filtered = answer.filtered ?? 0;
    out.again = (answer.retry ?? []).filter((i) => Number.isInteger(i) && i >= 0 && i < n);
    out.refused = Math.max(0, n - out.accepted - out.filtered - out.again.length);
  } else if (res.ok) out.unconfirmed = n;
  else if (res.status === 429 || res.status >= 500) out.again = all(n);
  else out.refused = n;
  return out;
}

function isAnswer(a: unknown): a is Answer {
  const o = a as Partial<Answer> | null;
  return (
    typeof o === "object" &&
    o !== null &&
    typeof o.accepted === "number" &&
    typeof o.rejected === "object" &&
    (o.retry === undefined || Array.isArray(o.retry))
  );
}

/** Retry-After as seconds or an HTTP date, in ms from now. */
function retryAfterMs(v: string | null): number {
  if (v === null) return 0;
  const s = Number(v);
  const ms = Number.isFinite(s) ? s * 1000 : Date.parse(v) - Date.now();
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}
