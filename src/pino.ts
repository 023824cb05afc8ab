/** `stowage/pino`: the pino transport (default export) and a main-thread destination. Re-exports only. */
export { default, type PinoTransportOptions } from "./bridges/pino/transport.js";
export {
  createPinoDestination,
  type PinoDestination,
  type PinoDestinationOptions,
} from "./bridges/pino/destination.js";
export { mapPinoLine, pinoLevel, type PinoFieldOptions } from "./bridges/pino/map-record.js";
