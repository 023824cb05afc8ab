/**
 * The S3 source flags shared by `stowage logs`, `stowage studio` and `stowage verify --source`
 * (SPEC §5.1): region, endpoint, path style, profile, credential variable names, trusted hosts.
 */
import type { Command } from "commander";
import type { OpenSourceOptions } from "../reader/index.js";

export const collect = (value: string, previous: string[]) => [...previous, value];

export interface SourceFlags {
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  profile?: string;
  accessKeyEnv?: string;
  secretKeyEnv?: string;
  sessionTokenEnv?: string;
  trustEndpoint: string[];
}

/** Adds the source flags to a command. */
export function addSourceFlags(cmd: Command): Command {
  return cmd
    .option("--region <region>", "S3 region")
    .option("--endpoint <url>", "S3-compatible endpoint (endpoint policy applies)")
    .option("--force-path-style", "path-style S3 URLs (MinIO)")
    .option("--profile <name>", "AWS shared config profile")
    .option("--access-key-env <NAME>", "environment variable holding the access key id")
    .option("--secret-key-env <NAME>", "environment variable holding the secret access key")
    .option("--session-token-env <NAME>", "environment variable holding a session token")
    .option(
      "--trust-endpoint <host>",
      "trust this endpoint host for this run (repeatable)",
      collect,
      [],
    );
}

/** The reader options the flags ask for (credentials by variable name, never value). */
export function sourceOptionsFromFlags(opts: SourceFlags): OpenSourceOptions {
  return {
    ...(opts.region ? { region: opts.region } : {}),
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    ...(opts.forcePathStyle ? { forcePathStyle: true } : {}),
    ...(opts.profile ? { profile: opts.profile } : {}),
    ...(opts.accessKeyEnv ? { accessKeyEnv: opts.accessKeyEnv } : {}),
    ...(opts.secretKeyEnv ? { secretKeyEnv: opts.secretKeyEnv } : {}),
    ...(opts.sessionTokenEnv ? { sessionTokenEnv: opts.sessionTokenEnv } : {}),
  };
}
