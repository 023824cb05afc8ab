/** `defineConfig`: the identity function that gives a TypeScript config its types (SPEC §2.0). */
import type { LoggerConfig } from "./logger-schema.js";

/**
 * @example
 * // stowage.config.ts
 * import { defineConfig } from "stowage";
 * export default defineConfig({
 *   service: "orders",
 *   destination: "s3",
 *   s3: { bucket: "production-logs", prefix: "orders/production", region: "eu-west-1" },
 * });
 */
export function defineConfig<const T extends LoggerConfig>(config: T): T {
  return config;
}
