/**
 * What ingestion counts, per request (the answer) and over the handler's life
 * (`stats()`): every record of a body is counted exactly once — accepted by the
 * logger, filtered (below the logger's level), or rejected for one reason — and
 * whole requests refused before any record is read are counted by reason.
 */

/** Why the logger refused a record it was handed (StowageError "rejected"). */
export interface IngestRefusals {
  /** The logger's queue is full (memory buffer): worth sending again later. */
  queueFull: number;
  /** The spool is full (sqlite buffer): worth sending again later. */
  spoolFull: number;
  /** Larger than the logger's `maxRecordBytes`. */
  oversized: number;
  /** The logger is closed. */
  closed: number;
  /** The buffer failed (e.g. a spool I/O error). */
  failed: number;
}

/** Why records were not accepted, counted per request and over the handler's life. */
export interface IngestRejections {
  malformed: number;
  oversized: number;
  tooMany: number;
  tooManyFields: number;
  skew: number;
  /** Refused by the logger, all reasons (the sum of `refusedBy`). */
  refused: number;
}

/** The answer to a request that was read: `accepted + filtered + Σ rejected` = records in the body. */
export interface IngestAnswer {
  accepted: number;
  /** Below the logger's level: valid, not stored (as the logger's own calls at that level). */
  filtered: number;
  clamped: number;
  rejected: IngestRejections;
  refusedBy: IngestRefusals;
  /** Places in the body (0-based) of the records refused for capacity: send these again later. */
  retry: number[];
}

export interface IngestCounts {
  requests: number;
  accepted: number;
  filtered: number;
  clamped: number;
  rejected: IngestRejections;
  refusedBy: IngestRefusals;
  /** Requests refused whole, by reason. */
  refusedRequests: {
    /** 401: no or wrong token. */
    unauthorized: number;
    /** 403: a browser origin not in the CORS allow-list. */
    forbiddenOrigin: number;
    /** 413: over maxBodyBytes. */
    bodyTooLarge: number;
    /** 400: neither form, too many malformed records, or a body that could not be read. */
    badRequest: number;
    /** 405: not POST or OPTIONS. */
    method: number;
    /** 503: the bodies in flight would pass maxBytesInFlight. */
    busy: number;
    /** 408: the body did not arrive within bodyTimeoutMs. */
    timeout: number;
    /** 500: the handler failed, or its body was consumed by another middleware. */
    internal: number;
  };
}

export function emptyRefusals(): IngestRefusals {
  return { queueFull: 0, spoolFull: 0, oversized: 0, closed: 0, failed: 0 };
}

export function emptyCounts(): IngestCounts {
  return {
    requests: 0,
    accepted: 0,
    filtered: 0,
    clamped: 0,
    rejected: { malformed: 0, oversized: 0, tooMany: 0, tooManyFields: 0, skew: 0, refused: 0 },
    refusedBy: emptyRefusals(),
    refusedRequests: {
      unauthorized: 0,
      forbiddenOrigin: 0,
      bodyTooLarge: 0,
      badRequest: 0,
      method: 0,
      busy: 0,
      timeout: 0,
      internal: 0,
    },
  };
}

/** Adds one request's answer to the handler's counts. */
export function addAnswer(counts: IngestCounts, a: IngestAnswer): void {
  counts.accepted += a.accepted;
  counts.filtered += a.filtered;
  counts.clamped += a.clamped;
  for (const k of Object.keys(a.rejected) as (keyof IngestRejections)[])
    counts.rejected[k] += a.rejected[k];
  for (const k of Object.keys(a.refusedBy) as (keyof IngestRefusals)[])
    counts.refusedBy[k] += a.refusedBy[k];
}
