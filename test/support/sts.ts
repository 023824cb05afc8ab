/**
 * STS AssumeRole on the test MinIO with an inline session policy: temporary credentials that
 * can do only what a printed `stowage policy` allows (test/policy.test.ts, compact-policy).
 */
import { createHash, createHmac } from "node:crypto";
import { SignatureV4 } from "@smithy/signature-v4";
import { minio } from "./minio.js";

type Bytes = string | ArrayBuffer | ArrayBufferView;
const bytes = (d: Bytes) =>
  typeof d === "string"
    ? d
    : ArrayBuffer.isView(d)
      ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength)
      : new Uint8Array(d);

/** SHA-256 / HMAC-SHA-256 for the SigV4 signer, from node:crypto. */
class Sha256 {
  private readonly h;
  constructor(secret?: Bytes) {
    this.h = secret ? createHmac("sha256", bytes(secret)) : createHash("sha256");
  }
  update(data: Bytes): void {
    this.h.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
}

export type StsSession = { AK: string; SK: string; ST: string };

/** STS AssumeRole on MinIO with an inline session policy: credentials that can do only what `policy` allows. */
export async function assumeRole(policy: unknown): Promise<StsSession> {
  const s = await tryAssumeRole(policy);
  if ("refused" in s) throw new Error(`AssumeRole refused: ${s.refused}`);
  return s;
}

/** Like assumeRole, but a refusal (a policy MinIO will not take) is an answer, with MinIO's message. */
export async function tryAssumeRole(policy: unknown): Promise<StsSession | { refused: string }> {
  const m = minio();
  const url = new URL(m.endpoint);
  const body = new URLSearchParams({
    Action: "AssumeRole",
    Version: "2011-06-15",
    DurationSeconds: "900",
    Policy: JSON.stringify(policy),
  }).toString();
  const signer = new SignatureV4({
    service: "sts",
    region: m.region,
    credentials: { accessKeyId: m.accessKeyId, secretAccessKey: m.secretAccessKey },
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: "POST",
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: "/",
    query: {},
    headers: { host: url.host, "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  const res = await fetch(`${m.endpoint}/`, { method: "POST", headers: signed.headers, body });
  const xml = await res.text();
  const tag = (name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(xml)?.[1];
  const AK = tag("AccessKeyId");
  const SK = tag("SecretAccessKey");
  const ST = tag("SessionToken");
  if (!res.ok || !AK || !SK || !ST)
    return { refused: `HTTP ${res.status}: ${tag("Message") ?? xml}` };
  return { AK, SK, ST };
}
