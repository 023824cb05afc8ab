// Hostile and newcomer endpoints (SPEC §2.1–§2.3): which hosts the policy lets
// through, the addressing style a custom endpoint gets, the endpoint the SDK really uses, a
// missing AWS region, and the B2/Wasabi presets. Requests go to the real MinIO where one is needed.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { parseDestination, type ResolvedS3Destination } from "../../src/config/destination.js";
import { isAwsS3Host } from "../../src/config/endpoint-policy.js";
import { describeEndpoint } from "../../src/config/providers.js";
import { openStore } from "../../src/store/open-store.js";
import { S3Store } from "../../src/store/s3-store.js";
import { StowageError } from "../../src/shared/errors.js";
import { minio } from "../support/minio.js";

const s3 = (block: Record<string, unknown>, env: Record<string, string> = {}) =>
  parseDestination({ bucket: "logs", ...block }, "s3", {
    env,
    origin: "data",
  }) as ResolvedS3Destination;

const verdict = (endpoint: string): string => {
  try {
    s3({ endpoint });
    return "allowed";
  } catch (err) {
    if (err instanceof StowageError) return `refused:${err.code}`;
    throw err;
  }
};

describe("§1 *.amazonaws.com narrowed to S3 host forms", () => {
  const s3Hosts = [
    "s3.amazonaws.com",
    "s3-external-1.amazonaws.com",
    "s3.eu-west-1.amazonaws.com",
    "s3-eu-west-1.amazonaws.com",
    "logs.s3.eu-west-1.amazonaws.com",
    "logs.s3.amazonaws.com",
    "my.dotted.bucket.s3.us-east-2.amazonaws.com",
    "s3.dualstack.eu-west-1.amazonaws.com",
    "logs.s3.dualstack.eu-west-1.amazonaws.com",
    "s3-fips.us-gov-west-1.amazonaws.com",
    "s3-fips.dualstack.us-east-1.amazonaws.com",
    "ap-123456789012.s3-accesspoint.eu-west-1.amazonaws.com",
    "ap-123456789012.s3-accesspoint-fips.dualstack.us-east-1.amazonaws.com",
    "s3-object-lambda.eu-west-1.amazonaws.com",
    "mfzwi23gnjvgw.mrap.accesspoint.s3-global.amazonaws.com",
    "s3express-control.us-east-1.amazonaws.com",
    "logs--use1-az4--x-s3.s3express-use1-az4.us-east-1.amazonaws.com",
    "s3.cn-north-1.amazonaws.com.cn",
  ];
  const notS3 = [
    "abc123.execute-api.us-east-1.amazonaws.com",
    "ec2-3-91-1-2.compute-1.amazonaws.com",
    "ec2-3-91-1-2.eu-west-1.compute.amazonaws.com",
    "my-lb-1234.eu-west-1.elb.amazonaws.com",
    "abc.lambda-url.us-east-1.on.aws",
    "amazonaws.com",
    "s3.amazonaws.com.evil.net",
    "evils3.amazonaws.com",
    "s3.evil.amazonaws.com",
    "logs.s3-website-us-east-1.amazonaws.com.attacker.io",
  ];
  it.each(s3Hosts)("S3 host %s is allowed over https, refused over http", (host) => {
    expect(isAwsS3Host(host)).toBe(true);
    expect(verdict(`https://${host}`)).toBe("allowed");
    expect(verdict(`http://${host}`)).toBe("refused:policy");
  });
  it.each(notS3)("non-S3 AWS host %s is refused", (host) => {
    expect(isAwsS3Host(host)).toBe(false);
    expect(verdict(`https://${host}`)).toBe("refused:policy");
  });
});

describe("§1 addressing style of a custom endpoint", () => {
  it.each([
    ["http://localhost:9000", true],
    ["http://127.0.0.1:9000", true],
    ["http://[::1]:9000", true],
    ["https://0123456789abcdef.r2.cloudflarestorage.com", false],
    ["https://s3.eu-west-1.amazonaws.com", false],
    ["https://nyc3.digitaloceanspaces.com", false],
  ])("%s → forcePathStyle %s (no flag given)", (endpoint, pathStyle) => {
    expect(s3({ endpoint }).forcePathStyle).toBe(pathStyle);
  });
  it("a trusted self-hosted endpoint is path style too, and an explicit flag wins", () => {
    const env = { STOWAGE_TRUSTED_ENDPOINTS: "minio.internal" };
    expect(s3({ endpoint: "https://minio.internal" }, env).forcePathStyle).toBe(true);
    expect(s3({ endpoint: "http://localhost:9000", force_path_style: false }).forcePathStyle).toBe(
      false,
    );
  });

  it("a Rivet-style block (localhost endpoint, region, no path-style flag) writes and reads MinIO", async () => {
    const m = minio();
    const port = new URL(m.endpoint).port;
    const dest = s3({
      bucket: m.bucket,
      endpoint: `http://localhost:${port}`,
      region: "us-east-1",
      access_key_env: "AK",
      secret_key_env: "SK",
    });
    const { store } = openStore(dest, { env: { AK: m.accessKeyId, SK: m.secretAccessKey } });
    const key = `t/hostile-localhost-${randomBytes(4).toString("hex")}`;
    try {
      await store.put(key, "hello");
      const got = await store.get(key);
      expect(Buffer.concat(await got.body.toArray()).toString()).toBe("hello");
      await store.delete(key);
    } finally {
      store.close();
    }
  });

  it("a DNS failure on <bucket>.<host> gets a hint naming force_path_style", async () => {
    const bucket = `nx${randomBytes(4).toString("hex")}`;
    const store = new S3Store({
      bucket,
      region: "us-east-1",
      endpoint: "http://stowage-no-such-host.invalid:9000",
      forcePathStyle: false,
      credentials: { accessKeyId: "a", secretAccessKey: "b" },
      requestTimeoutMs: 5_000,
    });
    try {
      const err = await store.put("k", "x").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StowageError);
      expect((err as StowageError).hint).toContain("force_path_style: true");
    } finally {
      store.close();
    }
  });
});

describe("§1 the endpoint actually used is the one resolved", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ["AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  /** The URL the SDK would send to, captured after endpoint resolution and before sending. */
  async function targetOf(store: S3Store): Promise<string> {
    let target = "";
    store.client.middlewareStack.add(
      () => (args) => {
        const r = args.request as { protocol: string; hostname: string; port?: number };
        target = `${r.protocol}//${r.hostname}${r.port ? `:${r.port}` : ""}`;
        throw new Error("captured");
      },
      { step: "finalizeRequest", priority: "low", name: "hostileCapture" },
    );
    await store.put("k", "x").catch(() => undefined);
    return target;
  }

  it.each(["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"])(
    "%s in the environment cannot redirect an AWS destination",
    async (name) => {
      process.env[name] = "http://attacker.example:8080";
      const store = new S3Store({
        bucket: "logs",
        region: "eu-west-1",
        credentials: { accessKeyId: "a", secretAccessKey: "b" },
      });
      try {
        expect(await targetOf(store)).toBe("https://logs.s3.eu-west-1.amazonaws.com");
      } finally {
        store.close();
      }
    },
  );

  it("doctor names the endpoint in use", () => {
    expect(describeEndpoint(s3({ region: "eu-west-1" }))).toMatch(
      /^https:\/\/s3\.eu-west-1\.amazonaws\.com \(AWS, virtual-hosted; AWS_ENDPOINT_URL\* and profile endpoint_url ignored\)$/,
    );
    expect(describeEndpoint(s3({ endpoint: "http://localhost:9000/" }))).toBe(
      "http://localhost:9000 (path-style)",
    );
  });
});

describe("§1 missing AWS region", () => {
  it("is a config error that says to set region", async () => {
    const saved = [process.env.AWS_REGION, process.env.AWS_DEFAULT_REGION];
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    const prevConfig = process.env.AWS_CONFIG_FILE;
    process.env.AWS_CONFIG_FILE = "/nonexistent/stowage-hostile-config";
    const store = new S3Store({
      bucket: "logs",
      credentials: { accessKeyId: "a", secretAccessKey: "b" },
    });
    try {
      const err = await store.put("k", "x").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StowageError);
      expect((err as StowageError).code).toBe("config");
      expect((err as StowageError).message).toContain("set `region`");
    } finally {
      store.close();
      if (saved[0] !== undefined) process.env.AWS_REGION = saved[0];
      if (saved[1] !== undefined) process.env.AWS_DEFAULT_REGION = saved[1];
      if (prevConfig === undefined) delete process.env.AWS_CONFIG_FILE;
      else process.env.AWS_CONFIG_FILE = prevConfig;
    }
  });
});

describe("§1 B2 and Wasabi presets", () => {
  it.each([
    [
      { provider: "b2", region: "us-west-004" },
      "https://s3.us-west-004.backblazeb2.com",
      "us-west-004",
    ],
    [{ provider: "wasabi" }, "https://s3.us-east-1.wasabisys.com", "us-east-1"],
    [
      { provider: "wasabi", region: "eu-central-1" },
      "https://s3.eu-central-1.wasabisys.com",
      "eu-central-1",
    ],
  ])("%j → %s", (block, endpoint, region) => {
    const d = s3(block);
    expect(d).toMatchObject({ endpoint, region, provider: block.provider, forcePathStyle: false });
  });
  it("b2 without a region says which region to set", () => {
    expect(() => s3({ provider: "b2" })).toThrow(/provider b2 needs `region`/);
  });
});
