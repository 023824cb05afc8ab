/** `stowage/express`: request logging middleware for Express 4/5. Re-exports only. */
export { stowageExpress, stowageExpressErrors } from "./bridges/express/middleware.js";
export type { RequestLogOptions } from "./bridges/http/request-record.js";
