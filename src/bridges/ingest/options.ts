/**
 * Ingestion options and their defaults: limits on body bytes, records per request, bytes,
 * fields and malformed records; the budget of body bytes in flight and the body read
 * deadline; the auth hook; the CORS allow-list; the origin marker written into each
 * record. Checked like a config (issue 34 §1): an unknown key is refused naming the
 * closest one, nested keys too.
 */
import { StowageError } from "../../shared/errors.js";
import { checkBridgeOptions } from "../shared/bridge-options.js";

const BRIDGE = "stowage/ingest";

/** What the auth callback sees of a request. */
export interface IngestRequestInfo {
  method: string;
  url: string;
  header(name: string): string | null;
}

export interface IngestOptions {
  /** Largest accepted body (default 1 MiB); larger → 413. */
  maxBodyBytes?: number;
  /** Records per request (default 1,000); the rest are rejected (`tooMany`) without being read. */
  maxRecords?: number;
  /** Bytes of one record's JSON (default 16 KiB); larger → rejected (`oversized`). */
  maxRecordBytes?: number;
  /** Keys in one record, nested ones included (default 200); more → rejected (`tooManyFields`). */
  maxFields?: number;
  /** Records that are not JSON objects a body may hold (default 10); past that the body is refused whole (400). */
  maxMalformed?: number;
  /** Body bytes all requests may hold at once while read and ingested (default 32 MiB); past it → 503 + Retry-After. */
  maxBytesInFlight?: number;
  /** Time to receive a whole body once its reading starts (default 10 s); past it → 408. */
  bodyTimeoutMs?: number;
  /** How far a record's time may lie in the future (default 5 min). */
  maxFutureSkewMs?: number;
  /** How far in the past (default 24 h: a page may send records it queued while offline). */
  maxPastSkewMs?: number;
  /** Out-of-range times: `"clamp"` to the server's time (default; the original is kept in bindings) or `"reject"`. */
  skew?: "clamp" | "reject";
  /**
   * A shared token (sent as `Authorization: Bearer T`, `X-Stowage-Token: T`, or `?token=T` for
   * `sendBeacon`, which cannot set headers), a callback deciding per request, or `"none"` to
   * accept anyone on purpose. Left out, anyone is accepted and one line on stderr says so.
   */
  auth?: "none" | { token: string } | ((req: IngestRequestInfo) => boolean | Promise<boolean>);
  /** Origins allowed to call from a browser (`"*"` for any); requests from others get 403. Default: none (same-origin and non-browser only). */
  cors?: { origins: readonly string[] | "*"; maxAgeSeconds?: number };
  /** Written as `bindings.origin` of every ingested record (default `"client"`). */
  origin?: string;
}

const KEYS: readonly (keyof IngestOptions)[] = [
  "maxBodyBytes",
  "maxRecords",
  "maxRecordBytes",
  "maxFields",
  "maxMalformed",
  "maxBytesInFlight",
  "bodyTimeoutMs",
  "maxFutureSkewMs",
  "maxPastSkewMs",
  "skew",
  "auth",
  "cors",
  "origin",
];

export interface ResolvedIngestOptions {
  maxBodyBytes: number;
  maxRecords: number;
  maxRecordBytes: number;
  maxFields: number;
  maxMalformed: number;
  maxBytesInFlight: number;
  bodyTimeoutMs: number;
  maxFutureSkewMs: number;
  maxPastSkewMs: number;
  skew: "clamp" | "reject";
  /** undefined: anyone (`auth: "none"`, or left out). */
  auth: ((req: IngestRequestInfo) => boolean | Promise<boolean>) | undefined;
  corsOrigins: readonly string[] | "*";
  corsMaxAgeSeconds: number;
  origin: string;
}

function refuse(message: string): never {
  throw new StowageError("config", `${BRIDGE}: ${message}`);
}

function whole(
  v: unknown,
  key: string,
  fallback: number,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = v ?? fallback;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max)
    refuse(`option \`${key}\` must be a whole number from ${min} to ${max}, got ${String(n)}`);
  return n;
}

/** Node fires a timer past 2^31 - 1 ms at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** @example resolveIngestOptions({ auth: { token: "t0123456" } }).maxRecords // 1000 */
export function resolveIngestOptions(o: IngestOptions = {}): ResolvedIngestOptions {
  checkBridgeOptions(BRIDGE, o, KEYS);
  if (o.skew !== undefined && o.skew !== "clamp" && o.skew !== "reject")
    refuse(`option \`skew\` must be "clamp" or "reject", got ${JSON.stringify(o.skew)}`);
  if (o.origin !== undefined && (typeof o.origin !== "string" || o.origin.length === 0))
    refuse("option `origin` must be a non-empty string");
  const maxBodyBytes = whole(o.maxBodyBytes, "maxBodyBytes", 1024 * 1024);
  const maxBytesInFlight = whole(o.maxBytesInFlight, "maxBytesInFlight", 32 * 1024 * 1024);
  if (maxBytesInFlight < maxBodyBytes)
    refuse(
      `option \`maxBytesInFlight\` (${maxBytesInFlight}) is below \`maxBodyBytes\` (${maxBodyBytes}): no body of the largest size could ever be read`,
    );
  const cors = resolveCors(o.cors);
  return {
    maxBodyBytes,
    maxRecords: whole(o.maxRecords, "maxRecords", 1000),
    maxRecordBytes: whole(o.maxRecordBytes, "maxRecordBytes", 16 * 1024),
    maxFields: whole(o.maxFields, "maxFields", 200),
    maxMalformed: whole(o.maxMalformed, "maxMalformed", 10, 0),
    maxBytesInFlight,
    bodyTimeoutMs: whole(o.bodyTimeoutMs, "bodyTimeoutMs", 10_000, 1, MAX_TIMER_MS),
    maxFutureSkewMs: whole(o.maxFutureSkewMs, "maxFutureSkewMs", 5 * 60_000),
    maxPastSkewMs: whole(o.maxPastSkewMs, "maxPastSkewMs", 24 * 3_600_000),
    skew: o.skew ?? "clamp",
    auth: resolveAuth(o.auth),
    corsOrigins: cors.origins,
    corsMaxAgeSeconds: cors.maxAgeSeconds,
    origin: o.origin ?? "client",
  };
}

function resolveCors(cors: IngestOptions["cors"]) {
  if (cors === undefined) return { origins: [] as readonly string[], maxAgeSeconds: 600 };
  checkBridgeOptions(`${BRIDGE} cors`, cors, ["origins", "maxAgeSeconds"]);
  const { origins } = cors;
  if (origins !== "*" && !(Array.isArray(origins) && origins.every((x) => typeof x === "string")))
    refuse('option `cors.origins` must be "*" or an array of origins ("https://shop.example")');
  return { origins, maxAgeSeconds: whole(cors.maxAgeSeconds, "cors.maxAgeSeconds", 600, 0) };
}

function resolveAuth(auth: IngestOptions["auth"]): ResolvedIngestOptions["auth"] {
  if (auth === undefined || auth === "none") return undefined;
  if (typeof auth === "function") return auth;
  if (auth === null || typeof auth !== "object")
    refuse(
      `option \`auth\` must be { token }, a callback (req) => boolean, or "none", got ${JSON.stringify(auth)}`,
    );
  checkBridgeOptions(`${BRIDGE} auth`, auth, ["token"]);
  const token = auth.token;
  if (typeof token !== "string" || token.length < 8)
    refuse("option `auth.token` must be a string of at least 8 characters");
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
