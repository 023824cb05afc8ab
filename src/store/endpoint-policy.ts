/**
 * The endpoint policy (SPEC §2.3) as the store layer sees it. The rules live in
 * config/endpoint-policy.ts because they are applied when a destination is
 * resolved (config load), and config/ may not import store/ (DESIGN.md
 * dependency direction).
 */
export {
  checkEndpoint,
  isLoopbackHost,
  isWellKnownProviderHost,
  parseTrustedHosts,
  WELL_KNOWN_PROVIDER_DOMAINS,
  type EndpointPolicyOptions,
  type EndpointVerdict,
} from "../config/endpoint-policy.js";
