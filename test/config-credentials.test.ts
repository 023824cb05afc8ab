// Credentials (SPEC §2.2) against a real MinIO: env source, anonymous really unsigned, secrets never echoed.
import { afterAll, describe, expect, it } from "vitest";
import { parseDestination } from "../src/config/index.js";
import { classifyError } from "../src/store/classify-error.js";
import { resolveCredentials } from "../src/store/credentials.js";
import type { ObjectStore } from "../src/store/object-store.js";
import { openStore } from "../src/store/open-store.js";
import { StowageError } from "../src/shared/errors.js";
import { minio, uniquePrefix } from "./support/minio.js";

const opened: ObjectStore[] = [];
afterAll(() => opened.forEach((s) => s.close()));

function destination(extra: Record<string, unknown>) {
  const m = minio();
  return parseDestination(
    {
      type: "s3",
      bucket: m.bucket,
      endpoint: m.endpoint,
      region: m.region,
      force_path_style: true,
      ...extra,
    },
    "destination",
    { env: {} },
  );
}
function open(extra: Record<string, unknown>, env: Record<string, string>) {
  const r = openStore(destination(extra), { env, requestTimeoutMs: 5000 });
  opened.push(r.store);
  return r;
}

describe("§2.2 credentials", () => {
  it("§2.2 access_key_env/secret_key_env read the named variables and sign real requests", async () => {
    const m = minio();
    const { store, credentialSource } = open(
      { access_key_env: "TEAM_AK", secret_key_env: "TEAM_SK" },
      { TEAM_AK: m.accessKeyId, TEAM_SK: m.secretAccessKey },
    );
    expect(credentialSource).toBe("env");
    const key = `${uniquePrefix("cred")}/probe`;
    await store.put(key, "hello");
    expect((await store.head(key)).size).toBe(5);
    await store.delete(key);
  });

  it("§2.2 a missing *_env variable is a config error naming the variable only", () => {
    const m = minio();
    const err = (() => {
      try {
        open(
          { access_key_env: "TEAM_AK", secret_key_env: "TEAM_SK_MISSING" },
          { TEAM_AK: m.accessKeyId },
        );
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(StowageError);
    expect((err as StowageError).code).toBe("config");
    expect((err as StowageError).message).toContain("TEAM_SK_MISSING");
    expect((err as StowageError).message).not.toContain(m.accessKeyId);
  });

  it("§2.2 allowAnonymous sends really unsigned requests: MinIO answers AccessDenied where a signed request succeeds", async () => {
    const m = minio();
    const key = `${uniquePrefix("anon")}/object`;
    const anon = open({ allow_anonymous: true }, {});
    expect(anon.credentialSource).toBe("anonymous");
    const denied = await anon.store.put(key, "x").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(classifyError(denied)).toMatchObject({ category: "auth", code: "AccessDenied" });
    // A signature with wrong keys would be InvalidAccessKeyId/SignatureDoesNotMatch: AccessDenied means no signature at all.
    const signed = open(
      { access_key_env: "AK", secret_key_env: "SK" },
      { AK: m.accessKeyId, SK: m.secretAccessKey },
    );
    await signed.store.put(key, "x");
    const list = await anon.store.list({ prefix: key }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(classifyError(list)).toMatchObject({ category: "auth", code: "AccessDenied" });
    await signed.store.delete(key);
  });

  it("§2.2 anonymous is refused for a non-loopback endpoint, at config load and at credential resolution", () => {
    expect(() =>
      parseDestination(
        { bucket: "logs", endpoint: "https://minio.internal", allow_anonymous: true },
        "s3",
        { env: { STOWAGE_TRUSTED_ENDPOINTS: "minio.internal" } },
      ),
    ).toThrow(/only allowed with a loopback endpoint/);
    expect(() =>
      resolveCredentials(
        { source: "anonymous" },
        { env: {}, endpoint: "https://s3.amazonaws.com" },
      ),
    ).toThrow(/loopback/);
  });

  it("§2.2 an explicit async provider function is used for signing; its output is validated without echoing it", async () => {
    const m = minio();
    const { store, credentialSource } = open(
      {
        credentials: async () => ({
          accessKeyId: m.accessKeyId,
          secretAccessKey: m.secretAccessKey,
        }),
      },
      {},
    );
    expect(credentialSource).toBe("explicit");
    await store.list({ prefix: uniquePrefix("fn"), maxKeys: 1 });
    const bad = resolveCredentials(
      {
        source: "explicit",
        credentials: async () => ({ accessKeyId: "only-id-0123", secretAccessKey: "" }),
      },
      { env: {} },
    );
    const e = await bad.provider!().then(
      () => undefined,
      (x: unknown) => x as Error,
    );
    expect(e?.message).toMatch(/did not return \{accessKeyId, secretAccessKey\}/);
    expect(e?.message).not.toContain("only-id-0123");
  });

  it("§2.2 profile and default chain name their source without resolving anything yet", () => {
    expect(
      resolveCredentials({ source: "profile", profile: "team" }, { env: {} }).description,
    ).toBe('AWS profile "team"');
    expect(resolveCredentials({ source: "default-chain" }, { env: {} })).toMatchObject({
      source: "default-chain",
      description: "AWS SDK default chain",
    });
  });
});
