/** The `stowage` package: the logger and its config helpers. Re-exports only. */
export { createLogger, type LoggerConfig } from "./logger/create-logger.js";
export { Logger } from "./logger/logger.js";
export type {
  FlushResult,
  DestinationResult,
  RejectedCounts,
  ConnectorResult,
} from "./logger/flush-result.js";
export type { DeliveryEvent, DeliveryEventListener } from "./delivery/events.js";
export type { ConnectorEvent } from "./connectors/connector.js";
export type { LoggerEvent, LoggerEventListener } from "./logger/create-logger.js";
export { defineConfig } from "./config/define-config.js";
export { StowageError, isStowageError } from "./shared/errors.js";
export type { StowageErrorCode } from "./shared/errors.js";
export type { LogRecord, SerializedError } from "./record/record.js";
export type { Level, LevelName } from "./record/levels.js";
