/** A `stowage.config.yaml` for the test MinIO in a fresh temp folder (credentials by variable name). */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { minio } from "./minio.js";

export interface YamlConfig {
  dir: string;
  file: string;
  /** The variables the config names, holding MinIO's root credentials. */
  env: Record<string, string>;
}

/**
 * @example const c = s3YamlConfig({ prefix, extra: ["  object_lock:", "    mode: GOVERNANCE"] }); dirs.push(c.dir);
 */
export function s3YamlConfig(o: {
  prefix: string;
  bucket?: string;
  endpoint?: string;
  extra?: string[];
  /** Names of the credential variables (default STOWAGE_TEST_AK / STOWAGE_TEST_SK). */
  accessKeyEnv?: string;
  secretKeyEnv?: string;
}): YamlConfig {
  const ak = o.accessKeyEnv ?? "STOWAGE_TEST_AK";
  const sk = o.secretKeyEnv ?? "STOWAGE_TEST_SK";
  const dir = mkdtempSync(join(tmpdir(), "stowage-yaml-"));
  const file = join(dir, "stowage.config.yaml");
  writeFileSync(
    file,
    [
      "destination: s3",
      "s3:",
      `  bucket: ${o.bucket ?? minio().bucket}`,
      `  prefix: ${o.prefix}`,
      `  region: ${minio().region}`,
      `  endpoint: ${o.endpoint ?? minio().endpoint}`,
      "  force_path_style: true",
      `  access_key_env: ${ak}`,
      `  secret_key_env: ${sk}`,
      ...(o.extra ?? []),
      "",
    ].join("\n"),
  );
  return { dir, file, env: { [ak]: minio().accessKeyId, [sk]: minio().secretAccessKey } };
}

/** The variables `s3YamlConfig` names, holding MinIO's root credentials. */
export function yamlEnv(): Record<string, string> {
  const m = minio();
  return { STOWAGE_TEST_AK: m.accessKeyId, STOWAGE_TEST_SK: m.secretAccessKey };
}
