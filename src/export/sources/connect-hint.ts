/**
 * The hint for a database that cannot be reached: a refused,
 * unresolvable or unreachable host gets "is the server running" with the host
 * and port, instead of a hint about the query. Never includes the URL.
 */

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ETIMEDOUT",
]);

interface NetErrorLike {
  code?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  errors?: unknown;
}

/**
 * A connection hint for a network-level failure, or undefined for anything else.
 * @example connectionHint({ code: "ECONNREFUSED", address: "127.0.0.1", port: 5432 }, "PostgreSQL")
 * // "nothing accepted the connection at 127.0.0.1:5432: is the PostgreSQL server running, and are host and port right?"
 */
export function connectionHint(err: unknown, server: string): string | undefined {
  const e = (err ?? {}) as NetErrorLike;
  const first = Array.isArray(e.errors) ? ((e.errors[0] ?? {}) as NetErrorLike) : e;
  const code = typeof e.code === "string" ? e.code : first.code;
  if (typeof code !== "string" || !UNREACHABLE.has(code)) return undefined;
  const host = first.address ?? first.hostname ?? e.address ?? e.hostname;
  const port = first.port ?? e.port;
  const at = host ? ` at ${String(host)}${port ? `:${String(port)}` : ""}` : "";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return `the database host${at} does not resolve: check the host name in the connection URL`;
  if (code === "ECONNREFUSED")
    return `nothing accepted the connection${at}: is the ${server} server running, and are host and port right?`;
  return `the database${at} did not answer: is the ${server} server running and reachable (host, port, firewall)?`;
}
