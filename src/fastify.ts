/** `stowage/fastify`: the request logging plugin for Fastify 5. Re-exports only. */
export { stowageFastify, type StowageFastifyOptions } from "./bridges/fastify/plugin.js";
export type { RequestLogOptions } from "./bridges/http/request-record.js";
