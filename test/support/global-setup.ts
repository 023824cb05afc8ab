/**
 * Vitest global setup: one real MinIO for the whole run. Tests read its
 * endpoint and credentials with `inject("minio")` (see `test/support/minio.ts`),
 * and the Chromium obtained for the browser tests with `inject("chromium")`.
 */
import type { TestProject } from "vitest/node";
import { findOrInstallChromium } from "./chromium.js";
import { startMinio, type RunningMinio } from "./minio-server.js";

let server: RunningMinio | undefined;

export async function setup(project: TestProject): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  server = await startMinio({ log: (l) => console.log(l) });
  const { stop: _stop, ...info } = server;
  project.provide("minio", info);
  // A Chromium that cannot be obtained fails the browser tests with this message (see
  // launchBrowser); the other tests still run.
  try {
    project.provide("chromium", { path: findOrInstallChromium((l) => console.log(l)) });
  } catch (err) {
    console.log(`browser tests will fail: ${(err as Error).message}`);
    project.provide("chromium", { error: (err as Error).message });
  }
}

export async function teardown(): Promise<void> {
  await server?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    minio: import("./minio-server.js").MinioInfo;
    chromium: { path: string } | { error: string };
  }
}
