/** The config layer's public surface (re-exports only). */
export { defineConfig } from "./define-config.js";
export {
  parseDestination,
  normalisePrefix,
  finishS3Destination,
  finishLocalDestination,
  type CredentialsSpec,
  type DestinationParseOptions,
  type ResolvedDestination,
  type ResolvedLocalDestination,
  type ResolvedS3Destination,
} from "./destination.js";
export type {
  CredentialIdentity,
  CredentialProvider,
  DestinationOptions,
  LocalDestinationOptions,
  S3DestinationOptions,
} from "./destination-schema.js";
export { endpointTrust, envFlag, processEnv, type Env, type EndpointTrust } from "./env.js";
export { interpolateEnv } from "./interpolate.js";
export { configIssuesError, configErrorMap } from "./issues.js";
export { closestKey, normaliseKeys, toCamelKey, toSnakeKey } from "./keys.js";
export {
  CONFIG_FILE_NAMES,
  findConfigFile,
  loadConfigFile,
  loadConfigFileSync,
  type FoundConfigFile,
  type LoadedConfigFile,
} from "./load-config.js";
export {
  DEFAULT_LOCAL_PATH,
  DELIVERY_DEFAULTS,
  GRANT_DEFAULTS,
  resolveLoggerConfig,
  spoolTargetHash,
  type ResolveLoggerOptions,
  type ResolvedDelivery,
  type ResolvedGrantLimits,
  type ResolvedLoggerConfig,
} from "./logger-config.js";
export {
  LEVELS,
  LEVEL_ALIASES,
  type Level,
  type LoggerConfig,
  type DeliveryOptions,
  type RedactOptions,
  type StudioOptions,
} from "./logger-schema.js";
export { loadProjectConfig, type ProjectConfig } from "./project-config.js";
