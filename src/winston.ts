/** `stowage/winston`: the winston transport and its record mapping. Re-exports only. */
export { StowageTransport, StowageDeliveryError } from "./bridges/winston/transport.js";
export type { WinstonTransportOptions } from "./bridges/winston/options.js";
export { WINSTON_LEVELS } from "./bridges/winston/levels.js";
