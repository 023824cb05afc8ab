/**
 * Vitest global setup: one real MinIO for the whole run. Tests read its
 * endpoint and credentials with `inject("minio")` (see `test/support/minio.ts`).
 */
import type { TestProject } from "vitest/node";
import { startMinio, type RunningMinio } from "./minio-server.js";

let server: RunningMinio | undefined;

export async function setup(project: TestProject): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  server = await startMinio({ log: (l) => console.log(l) });
  const { stop: _stop, ...info } = server;
  project.provide("minio", info);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    minio: import("./minio-server.js").MinioInfo;
  }
}
