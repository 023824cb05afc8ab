/**
 * Request guards for Studio's local server: the session token, the Host header
 * (DNS rebinding) and the Origin header (cross-site requests). Every API call
 * passes all three before any handler runs.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { ApiErrorCategory } from "./api-types.js";

export interface GuardFailure {
  status: number;
  category: ApiErrorCategory;
  message: string;
  hint?: string;
}

/** Host header values this server answers to: loopback names and the bound host, each with the port. */
export function allowedHosts(boundHost: string, port: number): Set<string> {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const bound =
    boundHost.includes(":") && !boundHost.startsWith("[") ? `[${boundHost}]` : boundHost;
  if (bound !== "0.0.0.0" && bound !== "[::]") hosts.add(`${bound.toLowerCase()}:${port}`);
  return hosts;
}

/**
 * A page on another site can point a name it controls at 127.0.0.1 (DNS
 * rebinding); the browser then sends that name as Host. Refusing unknown Host
 * values closes that door even before the token is checked.
 */
export function checkHost(req: IncomingMessage, hosts: Set<string>): GuardFailure | null {
  const host = (req.headers.host ?? "").toLowerCase();
  if (hosts.has(host)) return null;
  return {
    status: 403,
    category: "host",
    message: `Studio does not answer to the host "${host.slice(0, 80)}"`,
    hint: `open Studio through ${[...hosts][0]} (the URL printed at start)`,
  };
}

/** Origin, when sent, must be this server; a foreign origin is refused (CSRF). */
export function checkOrigin(req: IncomingMessage, hosts: Set<string>): GuardFailure | null {
  const origin = req.headers.origin;
  const site = req.headers["sec-fetch-site"];
  if (site === "cross-site") {
    return { status: 403, category: "origin", message: "cross-site requests are refused" };
  }
  if (origin === undefined) return null;
  let host: string;
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:") throw new Error("not http");
    host = url.host.toLowerCase();
  } catch {
    return {
      status: 403,
      category: "origin",
      message: `the request origin "${origin.slice(0, 80)}" is refused`,
    };
  }
  if (hosts.has(host)) return null;
  return {
    status: 403,
    category: "origin",
    message: `the request origin "${origin.slice(0, 80)}" is refused`,
  };
}

/** The token comes as `Authorization: Bearer <token>` or `x-stowage-token: <token>`. */
export function checkToken(req: IncomingMessage, token: string): GuardFailure | null {
  const auth = req.headers.authorization;
  const header = req.headers["x-stowage-token"];
  let given: string | undefined;
  if (typeof auth === "string" && /^Bearer\s+/i.test(auth))
    given = auth.replace(/^Bearer\s+/i, "").trim();
  else if (typeof header === "string") given = header.trim();
  if (given !== undefined && safeEqual(given, token)) return null;
  return {
    status: 401,
    category: "token",
    message:
      given === undefined
        ? "this request carries no Studio session token"
        : "the Studio session token is wrong",
    hint: "open the URL printed by `stowage studio` (it carries the token); a restarted Studio has a new token",
  };
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** Headers on every response: no caching of data, no referrer (the URL carries the token), no framing. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
});
