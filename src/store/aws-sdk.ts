/**
 * The AWS SDK, loaded on first use: `import "stowage"` (and a logger writing to
 * the local store) never pays the SDK's ~120–190 ms load. The SDK packages ship
 * CommonJS, so they can be required synchronously from a constructor.
 */
import { createRequire } from "node:module";

type ClientS3 = typeof import("@aws-sdk/client-s3");
type HttpHandler = typeof import("@smithy/node-http-handler");
type CredentialProviders = typeof import("@aws-sdk/credential-providers");

const require = createRequire(import.meta.url);
let clientS3: ClientS3 | undefined;
let httpHandler: HttpHandler | undefined;
let credentialProviders: CredentialProviders | undefined;

/** `@aws-sdk/client-s3` (S3Client and the commands). */
export function s3Sdk(): ClientS3 {
  return (clientS3 ??= require("@aws-sdk/client-s3") as ClientS3);
}

/**
 * Runs `build` (an SDK client constructor) without letting the SDK print its
 * Node-version support warning into the application: Stowage pins a working SDK
 * version itself, so the warning is noise in a user's logs. Other warnings pass.
 */
export function withoutSdkNodeWarning<T>(build: () => T): T {
  const original = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning?.message;
    if (typeof text === "string" && text.startsWith("NodeVersionSupportWarning")) return;
    (original as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return build();
  } finally {
    process.emitWarning = original;
  }
}

/** `@smithy/node-http-handler` (keep-alive sockets, timeouts). */
export function httpHandlerSdk(): HttpHandler {
  return (httpHandler ??= require("@smithy/node-http-handler") as HttpHandler);
}

/** `@aws-sdk/credential-providers` (profiles, SSO, credential_process, the default chain). */
export function credentialProvidersSdk(): CredentialProviders {
  return (credentialProviders ??= require("@aws-sdk/credential-providers") as CredentialProviders);
}
