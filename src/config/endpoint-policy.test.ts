import { describe, expect, it } from "vitest";
import { StowageError } from "../shared/errors.js";
import { checkEndpoint, isLoopbackHost, parseTrustedHosts } from "./endpoint-policy.js";
import { endpointTrust } from "./env.js";

const none = { trustedHosts: [], allowHttp: false, trustEndpoint: false };
const verdict = (
  endpoint: string | undefined,
  env: Record<string, string> = {},
  trustEndpoint = false,
) => {
  try {
    return checkEndpoint(endpoint, { ...endpointTrust(env), trustEndpoint }).kind;
  } catch (err) {
    if (err instanceof StowageError) return `refused:${err.code}`;
    throw err;
  }
};

describe("§2.3 endpoint policy table", () => {
  it.each([
    [undefined, {}, "default"],
    ["http://localhost:9000", {}, "loopback"],
    ["https://localhost:9000", {}, "loopback"],
    ["http://127.0.0.1:9000", {}, "loopback"],
    ["http://127.0.0.2:9000", {}, "loopback"],
    ["http://[::1]:9000", {}, "loopback"],
    ["http://2130706433:9000", {}, "loopback"], // WHATWG normalises to 127.0.0.1
    ["http://127.0.0.1.evil.com", {}, "refused:policy"],
    ["http://localhost.attacker.com", {}, "refused:policy"],
    ["http://128.0.0.1:9000", {}, "refused:policy"],
    ["https://minio.internal", {}, "refused:policy"],
    [
      "https://minio.internal",
      { STOWAGE_TRUSTED_ENDPOINTS: "other.host, minio.internal" },
      "trusted",
    ],
    [
      "https://minio.internal:9000",
      { STOWAGE_TRUSTED_ENDPOINTS: "minio.internal:9000" },
      "trusted",
    ],
    [
      "https://minio.internal:9000",
      { STOWAGE_TRUSTED_ENDPOINTS: "minio.internal:9999" },
      "refused:policy",
    ],
    ["http://minio.internal", { STOWAGE_TRUSTED_ENDPOINTS: "minio.internal" }, "refused:policy"],
    [
      "http://minio.internal",
      { STOWAGE_TRUSTED_ENDPOINTS: "minio.internal", STOWAGE_ALLOW_HTTP: "1" },
      "trusted",
    ],
    ["http://minio.internal", { STOWAGE_ALLOW_HTTP: "1" }, "refused:policy"],
    ["http://0123456789abcdef.r2.cloudflarestorage.com", {}, "refused:policy"],
    ["https://0123456789abcdef.r2.cloudflarestorage.com", {}, "provider"],
    ["https://s3.eu-west-1.amazonaws.com", {}, "provider"],
    ["https://evilamazonaws.com", {}, "refused:policy"],
    ["https://amazonaws.com.evil.net", {}, "refused:policy"],
    ["https://storage.googleapis.com", {}, "provider"],
    ["https://s3.us-west-001.backblazeb2.com", {}, "provider"],
    ["https://s3.wasabisys.com", {}, "provider"],
    ["https://nyc3.digitaloceanspaces.com", {}, "provider"],
    ["ftp://localhost", {}, "refused:config"],
    ["not a url", {}, "refused:config"],
    ["http://user:pw@localhost:9000", {}, "refused:policy"],
  ])("%s with %j → %s", (endpoint, env, expected) => {
    expect(verdict(endpoint, env as Record<string, string>)).toBe(expected);
  });

  it("§2.3 trustEndpoint (TypeScript config) trusts the host; http still needs STOWAGE_ALLOW_HTTP", () => {
    expect(verdict("https://minio.internal", {}, true)).toBe("trusted");
    expect(verdict("http://minio.internal", {}, true)).toBe("refused:policy");
    expect(verdict("http://minio.internal", { STOWAGE_ALLOW_HTTP: "true" }, true)).toBe("trusted");
  });

  it("§2.3 the refusal says what, why and the three ways forward", () => {
    const err = (() => {
      try {
        checkEndpoint("https://minio.internal:9000/path", none);
      } catch (e) {
        return e as StowageError;
      }
    })();
    expect(err?.code).toBe("policy");
    expect(err?.message).toContain("https://minio.internal:9000");
    expect(err?.message).toMatch(/neither a loopback address nor a well-known provider domain/);
    expect(err?.message).toContain("STOWAGE_TRUSTED_ENDPOINTS=minio.internal");
    expect(err?.message).toContain("--trust-endpoint minio.internal");
    expect(err?.message).toContain("trustEndpoint: true");
  });

  it("§2.3 a refused endpoint with userinfo never echoes the password", () => {
    expect(() => checkEndpoint("https://AKIAEXAMPLE:s3cr3tvalue@minio.internal", none)).toThrow(
      StowageError,
    );
    try {
      checkEndpoint("https://AKIAEXAMPLE:s3cr3tvalue@minio.internal", none);
    } catch (e) {
      expect((e as Error).message).not.toContain("s3cr3tvalue");
    }
  });

  it("§2.3 loopback is judged on the parsed host", () => {
    expect(isLoopbackHost("localhost")).toBe(true);
    expect(isLoopbackHost("[::1]")).toBe(true);
    expect(isLoopbackHost(new URL("http://[::ffff:127.0.0.1]/").hostname)).toBe(true);
    expect(isLoopbackHost("127.0.0.1.evil.com")).toBe(false);
    expect(isLoopbackHost("localhost.attacker.com")).toBe(false);
    expect(isLoopbackHost("::2")).toBe(false);
  });

  it("§2.3 STOWAGE_TRUSTED_ENDPOINTS accepts hosts, host:port and URLs", () => {
    expect(parseTrustedHosts(" A.example , b.example:9000,https://c.example:8443/x ,")).toEqual([
      "a.example",
      "b.example:9000",
      "c.example:8443",
    ]);
  });
});
