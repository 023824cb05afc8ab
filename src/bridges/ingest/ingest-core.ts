/**
 * The runtime-neutral ingestion request cycle, shared by the Node
 * and Fetch handlers: method and CORS checks, auth, the body size and the budget of
 * bytes in flight, reading (read-body.ts), parsing under the cheap limits
 * (parse-body.ts), validation, `Logger.write` per record (write-records.ts); the answer
 * says what happened to every record (counts.ts), and every count is kept in `stats`.
 * Uses Web APIs only, so it also runs on edge runtimes.
 *
 * Invariants (issue 31 §1): `inFlight` is the sum of the reservations of the requests
 * between admission and their answer, never above `maxBytesInFlight`; a request reserves
 * its declared Content-Length (or maxBodyBytes when none is declared) before its body is
 * read and releases it when answered, whatever happens. `handle` never throws.
 */
import type { Logger } from "../../logger/logger.js";
import {
  addAnswer,
  emptyCounts,
  type IngestAnswer,
  type IngestCounts,
  type IngestRejections,
} from "./counts.js";
import { valueBody } from "./body-value.js";
import type { IngestRequestInfo, ResolvedIngestOptions } from "./options.js";
import { parseBody } from "./parse-body.js";
import type { BodyRead } from "./read-body.js";
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
  /** Reads the body within `maxBytes` and `timeoutMs` (or takes what a body parser left). */
  readBody(maxBytes: number, timeoutMs: number): Promise<BodyRead>;
}

export interface CoreResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Answered before the body was read (or while it still arrives): close the connection. */
  close?: boolean;
}

type Refusal = keyof IngestCounts["refusedRequests"];

export class IngestCore {
  readonly counts = emptyCounts();
  /** Body bytes reserved by the requests being read and ingested now (≤ maxBytesInFlight). */
  private inFlight = 0;
  private toldConsumed = false;

  constructor(
    private readonly logger: Logger,
    private readonly o: ResolvedIngestOptions,
    /** Where failures of the server's own making are told (stderr in Node). */
    private readonly report: (message: string) => void,
  ) {}

  /** Never throws: an unexpected failure is a counted 500. */
  async handle(req: CoreRequest): Promise<CoreResponse> {
    this.counts.requests++;
    try {
      return await this.cycle(req);
    } catch (err) {
      this.report(`request failed: ${errorText(err)}`);
      return this.refuse("internal", 500, {}, "internal error");
    }
  }

  private async cycle(req: CoreRequest): Promise<CoreResponse> {
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
    const declared = contentLength(req.header("content-length"));
    if (declared !== null && declared > this.o.maxBodyBytes) return this.tooLarge(headers);
    // A body without a declared length may grow to maxBodyBytes: that much is reserved.
    const reserve = declared ?? this.o.maxBodyBytes;
    if (this.inFlight + reserve > this.o.maxBytesInFlight)
      return this.refuse(
        "busy",
        503,
        { ...headers, "retry-after": String(RETRY_AFTER_SECONDS) },
        `busy: bodies in flight would pass maxBytesInFlight (${this.o.maxBytesInFlight} bytes); send again later`,
      );
    this.inFlight += reserve;
    try {
      return await this.ingest(req, headers);
    } finally {
      this.inFlight -= reserve;
    }
  }

  private async ingest(req: CoreRequest, headers: Record<string, string>): Promise<CoreResponse> {
    const read = await req.readBody(this.o.maxBodyBytes, this.o.bodyTimeoutMs);
    if ("refused" in read) return this.unread(read, headers);
    const parsed = "text" in read ? parseBody(read.text, this.o) : valueBody(read.value, this.o);
    if (parsed.refused !== null)
      return { ...this.refuse("badRequest", 400, headers, parsed.refused), close: false };
    const rejected: IngestRejections = {
      malformed: parsed.malformed,
      oversized: parsed.oversized,
      tooMany: parsed.tooMany,
      tooManyFields: parsed.tooManyFields,
      skew: 0,
      refused: 0,
    };
    const marker = { origin: this.o.origin };
    const now = Date.now();
    const valid: { record: IngestRecord; index: number }[] = [];
    let clamped = 0;
    for (const { value, index } of parsed.records) {
      const v = validateRecord(value, now, this.o, marker);
      if ("reject" in v) rejected[v.reject]++;
      else {
        if (v.clamped) clamped++;
        valid.push({ record: v.record, index });
      }
    }
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

  /** A body that was not read: too large, too slow, gone, or consumed by another middleware. */
  private unread(
    read: Extract<BodyRead, { refused: string }>,
    headers: Record<string, string>,
  ): CoreResponse {
    switch (read.refused) {
      case "tooLarge":
        return this.tooLarge(headers);
      case "timeout":
        return this.refuse(
          "timeout",
          408,
          headers,
          `the body did not arrive within bodyTimeoutMs (${this.o.bodyTimeoutMs} ms)`,
        );
      case "failed":
        return this.refuse(
          "badRequest",
          400,
          headers,
          `the body could not be read (${read.detail ?? "?"})`,
        );
      case "consumed": {
        const message =
          "the request body was already read by another middleware, which left nothing in req.body: mount the ingest handler before body parsers, or use a parser (express.json, express.text) that sets req.body";
        if (!this.toldConsumed) this.report(message);
        this.toldConsumed = true;
        return this.refuse("internal", 500, headers, message);
      }
    }
  }

  private tooLarge(headers: Record<string, string>): CoreResponse {
    return this.refuse(
      "bodyTooLarge",
      413,
      headers,
      `body larger than maxBodyBytes (${this.o.maxBodyBytes})`,
    );
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

  /** A whole request refused, counted by reason; unless said otherwise its body was not read. */
  private refuse(
    kind: Refusal,
    status: number,
    headers: Record<string, string>,
    error: string,
  ): CoreResponse {
    this.counts.refusedRequests[kind]++;
    return {
      status,
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ accepted: 0, error }),
      close: true,
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

/** A Content-Length header as a number; null when absent or not a plain decimal. */
function contentLength(v: string | null): number | null {
  return v !== null && /^\d{1,15}$/.test(v.trim()) ? Number(v.trim()) : null;
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
