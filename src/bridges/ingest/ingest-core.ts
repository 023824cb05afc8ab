/**
 * The runtime-neutral ingestion request cycle, shared by the Node
 * and Fetch handlers: method and CORS checks, auth, the body limit, parsing,
 * validation, `Logger.write` per record (write-records.ts); the answer says what
 * happened to every record (counts.ts), and every count is kept in `stats`.
 * Uses Web APIs only, so it also runs on edge runtimes.
 */
import type { Logger } from "../../logger/logger.js";
import {
  addAnswer,
  emptyCounts,
  type IngestAnswer,
  type IngestCounts,
  type IngestRejections,
} from "./counts.js";
import type { IngestRequestInfo, ResolvedIngestOptions } from "./options.js";
import { parseBody } from "./parse-body.js";
import { validateRecord, type IngestRecord } from "./validate-record.js";
import { writeRecords } from "./write-records.js";

export type { IngestCounts, IngestRejections } from "./counts.js";

/**
 * Seconds a client is asked to wait (`Retry-After`) when the logger refused records for
 * capacity. When the queue drains depends on the store, which the endpoint cannot know:
 * this is a floor; the client's own backoff grows past it while refusals continue.
 */
const RETRY_AFTER_SECONDS = 1;

export interface CoreRequest extends IngestRequestInfo {
  /** Reads the body up to `maxBytes`; null when it is larger. */
  readBody(maxBytes: number): Promise<string | null>;
}

export interface CoreResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class IngestCore {
  readonly counts = emptyCounts();

  constructor(
    private readonly logger: Logger,
    private readonly o: ResolvedIngestOptions,
  ) {}

  async handle(req: CoreRequest): Promise<CoreResponse> {
    this.counts.requests++;
    const origin = req.header("origin");
    const cors = this.corsHeaders(origin);
    if (origin !== null && cors === null && !this.sameOrigin(req, origin))
      return this.refuse(
        "forbiddenOrigin",
        403,
        {},
        `origin ${origin} is not in the ingest CORS allow-list`,
      );
    const headers = cors ?? {};
    if (req.method === "OPTIONS") return { status: 204, headers, body: "" };
    if (req.method !== "POST")
      return this.refuse("method", 405, { ...headers, allow: "POST, OPTIONS" }, "use POST");
    if (this.o.auth && !(await this.o.auth(req)))
      return this.refuse("unauthorized", 401, headers, "missing or wrong ingest token");
    const text = await req.readBody(this.o.maxBodyBytes);
    if (text === null)
      return this.refuse(
        "bodyTooLarge",
        413,
        headers,
        `body larger than maxBodyBytes (${this.o.maxBodyBytes})`,
      );
    const parsed = parseBody(text, this.o.maxRecordBytes);
    if (parsed.unreadable)
      return this.refuse(
        "badRequest",
        400,
        headers,
        "body is neither a JSON array nor NDJSON records",
      );
    const rejected: IngestRejections = {
      malformed: parsed.malformed,
      oversized: parsed.oversized,
      tooMany: 0,
      tooManyFields: 0,
      skew: 0,
      refused: 0,
    };
    const marker = { origin: this.o.origin };
    const now = Date.now();
    const valid: { record: IngestRecord; index: number }[] = [];
    let clamped = 0;
    parsed.records.forEach(({ value, index }, i) => {
      if (i >= this.o.maxRecords) return void rejected.tooMany++;
      const v = validateRecord(value, now, this.o, marker);
      if ("reject" in v) return void rejected[v.reject]++;
      if (v.clamped) clamped++;
      valid.push({ record: v.record, index });
    });
    const w = await writeRecords(this.logger, valid);
    rejected.malformed += w.malformed;
    rejected.refused = Object.values(w.refusedBy).reduce((a, b) => a + b, 0);
    const answer: IngestAnswer = {
      accepted: w.accepted,
      filtered: w.filtered,
      clamped,
      rejected,
      refusedBy: w.refusedBy,
      retry: w.retry,
    };
    addAnswer(this.counts, answer);
    return this.answer(answer, headers);
  }

  /**
   * 200 with the counts; when records were refused for capacity, `Retry-After` too, and
   * 503 if nothing was accepted (then resending the whole body cannot store anything twice).
   */
  private answer(a: IngestAnswer, headers: Record<string, string>): CoreResponse {
    const out = { ...headers, "content-type": "application/json" };
    if (a.retry.length === 0) return { status: 200, headers: out, body: JSON.stringify(a) };
    return {
      status: a.accepted === 0 ? 503 : 200,
      headers: { ...out, "retry-after": String(RETRY_AFTER_SECONDS) },
      body: JSON.stringify(a),
    };
  }

  private refuse(
    kind: keyof IngestCounts["refusedRequests"],
    status: number,
    headers: Record<string, string>,
    error: string,
  ): CoreResponse {
    this.counts.refusedRequests[kind]++;
    return {
      status,
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ accepted: 0, error }),
    };
  }

  /** CORS headers for an allowed origin; null when the origin is not allowed. */
  private corsHeaders(origin: string | null): Record<string, string> | null {
    if (origin === null) return null;
    const list = this.o.corsOrigins;
    if (list !== "*" && !list.includes(origin)) return null;
    return {
      "access-control-allow-origin": list === "*" ? "*" : origin,
      "access-control-allow-methods": "POST, OPTIONS",
      "access-control-allow-headers": "content-type, authorization, x-stowage-token",
      "access-control-max-age": String(this.o.corsMaxAgeSeconds),
      // A page's client reads Retry-After to wait before sending refused records again.
      "access-control-expose-headers": "retry-after",
      vary: "origin",
    };
  }

  /** A same-origin request carries an Origin equal to its own host: no CORS needed. */
  private sameOrigin(req: CoreRequest, origin: string): boolean {
    const host = req.header("host");
    try {
      return host !== null && new URL(origin).host === host;
    } catch {
      return false;
    }
  }
}
