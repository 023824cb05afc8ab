/**
 * Provider presets (SPEC §2.1: aws, r2, minio) as the store layer sees them.
 * The rules live in config/providers.ts, applied when a destination is resolved
 * (config/ may not import store/, DESIGN.md dependency direction).
 */
export {
  applyProvider,
  r2Endpoint,
  type Addressing,
  type AddressingInput,
  type ProviderName,
} from "../config/providers.js";
