/**
 * The runtime-neutral ingestion request cycle, shared by the Node
 * and Fetch handlers: method and CORS checks, auth, the body limit, parsing,
 * validation, `Logger.write` per record; the answer says how many records were
 * accepted and why the others were not, and every count is kept in `stats`.
 * Uses Web APIs only, so it also runs on edge runtimes.
 */
import type { Logger } from "../../logger/logger.js";
import type { IngestRequestInfo, ResolvedIngestOptions } from "./options.js";
import { parseBody } from "./parse-body.js";
import { validateRecord } from "./validate-record.js";

/** Why records were not accepted, counted per request and over the handler's life. */
export interface IngestRejections {
  malformed: number;
  oversized: number;
  tooMany: number;
  tooManyFields: number;
  skew: number;
  /** Refused by the logger (queue or spool full, closed). */
  refused: number;
}

export interface IngestCounts {
  requests: number;
  accepted: number;
  clamped: number;
  rejected: IngestRejections;
  /** Requests refused whole: auth, CORS, body too large, unreadable body, wrong method. */
  refusedRequests: {
    unauthorized: number;
    forbiddenOrigin: number;
    bodyTooLarge: number;
    badRequest: number;
    method: number;
  };
}

export interface CoreRequest extends IngestRequestInfo {
  /** Reads the body up to `maxBytes`; null when it is larger. */
  readBody(maxBytes: number): Promise<string | null>;
}

export interface CoreResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function emptyCounts(): IngestCounts {
  return {
    requests: 0,
    accepted: 0,
    clamped: 0,
    rejected: { malformed: 0, oversized: 0, tooMany: 0, tooManyFields: 0, skew: 0, refused: 0 },
    refusedRequests: {
      unauthorized: 0,
      forbiddenOrigin: 0,
      bodyTooLarge: 0,
      badRequest: 0,
      method: 0,
    },
  };
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
    const writes: Promise<void>[] = [];
    let clamped = 0;
    parsed.records.forEach(({ value }, i) => {
      if (i >= this.o.maxRecords) return void rejected.tooMany++;
      const v = validateRecord(value, now, this.o, marker);
      if ("reject" in v) return void rejected[v.reject]++;
      if (v.clamped) clamped++;
      writes.push(this.logger.write(v.record as Parameters<Logger["write"]>[0]));
    });
    let accepted = 0;
    for (const r of await Promise.allSettled(writes)) {
      if (r.status === "fulfilled") accepted++;
      else if ((r.reason as { code?: string })?.code === "usage") rejected.malformed++;
      else rejected.refused++;
    }
    this.counts.accepted += accepted;
    this.counts.clamped += clamped;
    for (const k of Object.keys(rejected) as (keyof IngestRejections)[])
      this.counts.rejected[k] += rejected[k];
    const body = JSON.stringify({ accepted, clamped, rejected });
    return { status: 200, headers: { ...headers, "content-type": "application/json" }, body };
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
