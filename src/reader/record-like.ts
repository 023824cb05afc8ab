/** The shape of a record as read back: the v1 fields (§3.1), loosely typed. */
export interface LogRecordLike {
  timestamp: string;
  level: string;
  message: string;
  service?: string;
  caller?: string;
  data?: unknown;
  bindings?: Record<string, unknown>;
  error?: { name?: string; message?: string; stack?: string; [k: string]: unknown };
  traceId?: string;
  spanId?: string;
  [k: string]: unknown;
}
