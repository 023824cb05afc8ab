/** `stowage/hono`: the request logging middleware for Hono 4. Re-exports only. */
export { stowageHono, type StowageHonoVariables } from "./bridges/hono/middleware.js";
export type { RequestLogOptions } from "./bridges/http/request-record.js";
