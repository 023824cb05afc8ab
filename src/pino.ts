/** `stowage/pino`: the pino transport (default export), a main-thread destination, and withFlushErrors. Re-exports only. */
export { default, type PinoTransportOptions } from "./bridges/pino/transport.js";
export {
  createPinoDestination,
  type PinoDestination,
  type PinoDestinationOptions,
} from "./bridges/pino/destination.js";
export { withFlushErrors, type FlushableTransport } from "./bridges/pino/flush-errors.js";
export { mapPinoLine, pinoLevel, type PinoFieldOptions } from "./bridges/pino/map-record.js";
