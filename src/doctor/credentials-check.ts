/**
 * Doctor's credentials check (SPEC §2.2, §2.5 item 2): the configured source
 * resolves — profiles, the default chain and provider functions are actually
 * asked (10 s limit) — and a missing `*_env` variable is named.
 */
import type { ResolvedS3Destination } from "../config/destination.js";
import type { Env } from "../config/env.js";
import { StowageError, isStowageError } from "../shared/errors.js";
import { resolveCredentials } from "../store/credentials.js";
import { firstLine } from "./diagnose.js";
import type { CheckOutcome } from "./types.js";

const ASK_TIMEOUT_MS = 10_000;

/** @example await checkCredentials(dest, process.env) // { ok: true } */
export async function checkCredentials(
  dest: ResolvedS3Destination,
  env: Env,
): Promise<CheckOutcome> {
  try {
    const creds = resolveCredentials(dest.credentials, { env, endpoint: dest.endpoint });
    if (creds.provider && creds.source !== "env") {
      const timeout = AbortSignal.timeout(ASK_TIMEOUT_MS);
      await Promise.race([
        creds.provider(),
        new Promise((_, reject) =>
          timeout.addEventListener("abort", () =>
            reject(new StowageError("credentials", `no answer within ${ASK_TIMEOUT_MS / 1000} s`)),
          ),
        ),
      ]);
    }
    return { ok: true };
  } catch (err) {
    const config = isStowageError(err, "config");
    return {
      ok: false,
      category: config ? "config error" : "auth error",
      detail: firstLine(err instanceof Error ? err.message : String(err)),
      hint: config
        ? ((err as StowageError).hint ?? "fix the credentials settings")
        : "no credentials found from this source: see docs/credentials.md for the resolution order",
    };
  }
}
