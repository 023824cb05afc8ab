/**
 * Ingestion options and their defaults: limits on body bytes,
 * records per request, bytes and fields per record, timestamp skew; the auth
 * hook; the CORS allow-list; the origin marker written into each record.
 */
import { StowageError } from "../../shared/errors.js";

/** What the auth callback sees of a request. */
export interface IngestRequestInfo {
  method: string;
  url: string;
  header(name: string): string | null;
}

export interface IngestOptions {
  /** Largest accepted body (default 1 MiB); larger → 413. */
  maxBodyBytes?: number;
  /** Records per request (default 1,000); the rest are rejected (`tooMany`). */
  maxRecords?: number;
  /** Bytes of one record's JSON (default 16 KiB); larger → rejected (`oversized`). */
  maxRecordBytes?: number;
  /** Keys in one record, nested ones included (default 200); more → rejected (`tooManyFields`). */
  maxFields?: number;
  /** How far a record's time may lie in the future (default 5 min). */
  maxFutureSkewMs?: number;
  /** How far in the past (default 24 h: a page may send records it queued while offline). */
  maxPastSkewMs?: number;
  /** Out-of-range times: `"clamp"` to the server's time (default; the original is kept in bindings) or `"reject"`. */
  skew?: "clamp" | "reject";
  /**
   * A shared token (sent as `Authorization: Bearer T`, `X-Stowage-Token: T`, or `?token=T` for
   * `sendBeacon`, which cannot set headers), or a callback deciding per request.
   */
  auth?: { token: string } | ((req: IngestRequestInfo) => boolean | Promise<boolean>);
  /** Origins allowed to call from a browser (`"*"` for any); requests from others get 403. Default: none (same-origin and non-browser only). */
  cors?: { origins: readonly string[] | "*"; maxAgeSeconds?: number };
  /** Written as `bindings.origin` of every ingested record (default `"client"`). */
  origin?: string;
}

export interface ResolvedIngestOptions {
  maxBodyBytes: number;
  maxRecords: number;
  maxRecordBytes: number;
  maxFields: number;
  maxFutureSkewMs: number;
  maxPastSkewMs: number;
  skew: "clamp" | "reject";
  auth: ((req: IngestRequestInfo) => boolean | Promise<boolean>) | undefined;
  corsOrigins: readonly string[] | "*";
  corsMaxAgeSeconds: number;
  origin: string;
}

function positive(o: IngestOptions, key: keyof IngestOptions, fallback: number): number {
  const v = o[key] ?? fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v <= 0)
    throw new StowageError(
      "config",
      `ingest option \`${key}\` must be a positive whole number, got ${String(v)}`,
    );
  return v;
}

/** @example resolveIngestOptions({ auth: { token: "t" } }).maxRecords // 1000 */
export function resolveIngestOptions(o: IngestOptions = {}): ResolvedIngestOptions {
  if (o.skew !== undefined && o.skew !== "clamp" && o.skew !== "reject")
    throw new StowageError(
      "config",
      `ingest option \`skew\` must be "clamp" or "reject", got ${JSON.stringify(o.skew)}`,
    );
  return {
    maxBodyBytes: positive(o, "maxBodyBytes", 1024 * 1024),
    maxRecords: positive(o, "maxRecords", 1000),
    maxRecordBytes: positive(o, "maxRecordBytes", 16 * 1024),
    maxFields: positive(o, "maxFields", 200),
    maxFutureSkewMs: positive(o, "maxFutureSkewMs", 5 * 60_000),
    maxPastSkewMs: positive(o, "maxPastSkewMs", 24 * 3_600_000),
    skew: o.skew ?? "clamp",
    auth: resolveAuth(o.auth),
    corsOrigins: o.cors?.origins ?? [],
    corsMaxAgeSeconds: o.cors?.maxAgeSeconds ?? 600,
    origin: o.origin ?? "client",
  };
}

function resolveAuth(auth: IngestOptions["auth"]): ResolvedIngestOptions["auth"] {
  if (auth === undefined || typeof auth === "function") return auth;
  const token = auth?.token;
  if (typeof token !== "string" || token.length < 8)
    throw new StowageError(
      "config",
      "ingest option `auth.token` must be a string of at least 8 characters",
    );
  return (req) => {
    const bearer = req.header("authorization");
    const given =
      (bearer?.startsWith("Bearer ") ? bearer.slice(7) : null) ??
      req.header("x-stowage-token") ??
      new URL(req.url, "http://x").searchParams.get("token");
    return given !== null && constantTimeEqual(given, token);
  };
}

/** Compares without an early exit, so response time does not leak how much of the token matched. */
function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a.charCodeAt(i) || 0) ^ b.charCodeAt(i);
  return diff === 0;
}
