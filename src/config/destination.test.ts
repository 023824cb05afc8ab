import { describe, expect, it } from "vitest";
import { StowageError } from "../shared/errors.js";
import { normalisePrefix, parseDestination } from "./destination.js";

const env = {};
const err = (f: () => unknown): StowageError => {
  try {
    f();
  } catch (e) {
    if (e instanceof StowageError) return e;
    throw e;
  }
  throw new Error("expected a StowageError");
};

describe("§2.1 destination block", () => {
  it("§2.1 YAML snake_case aliases resolve like camelCase", () => {
    const snake = parseDestination(
      {
        type: "s3",
        bucket: "logs",
        endpoint: "http://localhost:9000",
        force_path_style: true,
        access_key_env: "AK",
        secret_key_env: "SK",
        session_token_env: "ST",
      },
      "destination",
      { env },
    );
    const camel = parseDestination(
      {
        type: "s3",
        bucket: "logs",
        endpoint: "http://localhost:9000",
        forcePathStyle: true,
        accessKeyEnv: "AK",
        secretKeyEnv: "SK",
        sessionTokenEnv: "ST",
      },
      "destination",
      { env },
    );
    expect(snake).toEqual(camel);
    expect(snake).toMatchObject({
      type: "s3",
      forcePathStyle: true,
      credentials: { source: "env", accessKeyEnv: "AK", secretKeyEnv: "SK", sessionTokenEnv: "ST" },
    });
    expect(
      parseDestination({ bucket: "logs", aws_profile: "prod", region: "eu-west-1" }, "s3", { env }),
    ).toMatchObject({ credentials: { source: "profile", profile: "prod" } });
    expect(
      parseDestination({ bucket: "logs", provider: "r2", account_id: "abc123" }, "s3", { env }),
    ).toMatchObject({ accountId: "abc123", region: "auto" });
  });

  it("§2.1 prefix is normalised: no leading slash, one slash between parts", () => {
    expect(normalisePrefix("/orders//production/")).toBe("orders/production");
    expect(normalisePrefix(undefined)).toBe("");
    expect(
      parseDestination({ bucket: "logs", prefix: "//a///b/", region: "eu-west-1" }, "s3", { env }),
    ).toMatchObject({ prefix: "a/b" });
    expect(err(() => normalisePrefix("a/../b")).code).toBe("config");
  });

  it("§2.1 unknown keys name the key, its path and the closest valid key in the user's spelling", () => {
    expect(err(() => parseDestination({ bukcet: "logs" }, "s3", { env })).message).toContain(
      "unknown key `bukcet` in s3; did you mean `bucket`?",
    );
    expect(
      err(() => parseDestination({ bucket: "logs", forcePathStyel: true }, "s3", { env })).message,
    ).toContain("did you mean `forcePathStyle`?");
    expect(
      err(() =>
        parseDestination(
          { type: "s3", bucket: "logs", secret_key_evn: "X" },
          "exports[0].destination",
          { env },
        ),
      ).message,
    ).toContain(
      "unknown key `secret_key_evn` in exports[0].destination; did you mean `secret_key_env`?",
    );
  });

  it("§8 wrong types name the path and the expected type, never the value", () => {
    const e = err(() =>
      parseDestination({ bucket: "logs", force_path_style: "s3cr3t-ish" }, "s3", { env }),
    );
    expect(e.code).toBe("config");
    expect(e.message).toContain("`s3.force_path_style` must be a boolean");
    expect(e.message).not.toContain("s3cr3t-ish");
    expect(err(() => parseDestination({ bucket: "s3://logs/app" }, "s3", { env })).message).toMatch(
      /bucket name only/,
    );
    expect(
      err(() => parseDestination({ type: "locl", path: "x" }, "destination", { env })).message,
    ).toContain('did you mean "local"?');
  });

  it("§2.1 provider presets: r2 needs accountId and sets region auto + endpoint; minio is path style", () => {
    expect(
      parseDestination({ bucket: "logs", provider: "r2", accountId: "0123abc" }, "s3", { env }),
    ).toMatchObject({
      region: "auto",
      endpoint: "https://0123abc.r2.cloudflarestorage.com",
      forcePathStyle: false,
    });
    expect(
      err(() => parseDestination({ bucket: "logs", provider: "r2" }, "s3", { env })).message,
    ).toMatch(/needs `accountId`/);
    expect(
      parseDestination(
        { bucket: "logs", provider: "minio", endpoint: "http://localhost:9000" },
        "s3",
        { env },
      ),
    ).toMatchObject({ forcePathStyle: true, region: "us-east-1" });
    expect(
      err(() => parseDestination({ bucket: "logs", provider: "minio" }, "s3", { env })).message,
    ).toMatch(/needs `endpoint`/);
    expect(
      parseDestination({ bucket: "logs" }, "s3", { env: { AWS_REGION: "eu-north-1" } }),
    ).toMatchObject({ provider: "aws", region: "eu-north-1" });
  });

  it("§2.2 credential source follows the resolution order; conflicts with anonymous are refused", () => {
    const fn = async () => ({ accessKeyId: "a", secretAccessKey: "b" });
    expect(
      parseDestination(
        { bucket: "logs", credentials: fn, accessKeyEnv: "A", secretKeyEnv: "B" },
        "s3",
        { env },
      ),
    ).toMatchObject({ credentials: { source: "explicit" } });
    expect(
      parseDestination(
        { bucket: "logs", accessKeyEnv: "A", secretKeyEnv: "B", profile: "p" },
        "s3",
        { env },
      ),
    ).toMatchObject({ credentials: { source: "env" } });
    expect(parseDestination({ bucket: "logs" }, "s3", { env })).toMatchObject({
      credentials: { source: "default-chain" },
    });
    expect(
      err(() => parseDestination({ bucket: "logs", accessKeyEnv: "A" }, "s3", { env })).message,
    ).toMatch(/both accessKeyEnv and secretKeyEnv/);
    expect(
      parseDestination(
        { bucket: "logs", endpoint: "http://127.0.0.1:9000", allowAnonymous: true },
        "s3",
        { env },
      ),
    ).toMatchObject({ credentials: { source: "anonymous" } });
    expect(
      err(() => parseDestination({ bucket: "logs", allowAnonymous: true }, "s3", { env })).message,
    ).toMatch(/only allowed with a loopback endpoint/);
    expect(
      err(() =>
        parseDestination(
          { bucket: "logs", endpoint: "http://localhost:9000", allowAnonymous: true, profile: "p" },
          "s3",
          { env },
        ),
      ).message,
    ).toMatch(/cannot be combined/);
  });

  it("§2.2 YAML may not carry literal credentials; a key pasted into *_env is refused without echoing it", () => {
    const e = err(() =>
      parseDestination(
        {
          bucket: "logs",
          credentials: { accessKeyId: "AKIAXXXXXXXXXXXXXXXX", secretAccessKey: "topsecret" },
        },
        "s3",
        { env, origin: "data" },
      ),
    );
    expect(e.message).toMatch(/not accepted in a YAML\/JSON file/);
    expect(e.message).not.toContain("topsecret");
    const pasted = err(() =>
      parseDestination(
        {
          bucket: "logs",
          access_key_env: "AKIAIOSFODNN7EXAMPLE",
          secret_key_env: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        },
        "s3",
        { env },
      ),
    );
    expect(pasted.message).toMatch(/looks like an access key/);
    expect(pasted.message).not.toContain("AKIAIOSFODNN7EXAMPLE");
    expect(pasted.message).not.toContain("wJalrXUtnFEMI");
  });

  it("§2.3 the endpoint policy applies at resolution; trustEndpoint counts only from code", () => {
    expect(
      err(() =>
        parseDestination({ bucket: "logs", endpoint: "https://minio.internal" }, "s3", { env }),
      ).code,
    ).toBe("policy");
    expect(
      parseDestination({ bucket: "logs", endpoint: "https://minio.internal" }, "s3", {
        env,
        trustedHosts: ["minio.internal"],
      }),
    ).toMatchObject({ endpoint: "https://minio.internal" });
    expect(
      parseDestination(
        { bucket: "logs", endpoint: "https://minio.internal", trustEndpoint: true },
        "s3",
        { env },
      ),
    ).toMatchObject({ trustEndpoint: true });
    const yaml = err(() =>
      parseDestination(
        { bucket: "logs", endpoint: "https://minio.internal", trust_endpoint: true },
        "s3",
        { env, origin: "data", file: "x.yaml" },
      ),
    );
    expect(yaml.code).toBe("policy");
    expect(yaml.message).toMatch(/^x\.yaml: s3: endpoint https:\/\/minio\.internal refused/);
    expect(yaml.message).toMatch(/not honoured in a YAML\/JSON file/);
  });

  it("§2.1 the local form resolves its path against cwd", () => {
    expect(
      parseDestination({ type: "local", path: "data/store" }, "destination", {
        env,
        cwd: "/srv/app",
      }),
    ).toEqual({ type: "local", path: "/srv/app/data/store" });
  });
});
