/** The public reader API (`stowage/reader`, SPEC §5): sources, bounded query sessions, their types. */
export { openSource, createSource } from "./source.js";
export type { OpenSourceOptions, CreateSourceOptions } from "./source.js";
export {
  DEFAULT_LIMITS,
  MAX_RANGE_MS,
  OBJECT_MAX_COMPRESSED_BYTES,
  OBJECT_MAX_DECODED_BYTES,
  resolveLimits,
} from "./limits.js";
export { parseTimeArg, resolveRange, hoursNewestFirst } from "./time-range.js";
export type { TimeRange } from "./time-range.js";
export { DEFAULT_CACHE_BYTES } from "./object-cache.js";
export {
  DEFAULT_POLL_LIMITS,
  DEFAULT_FOLLOW_INTERVAL_MS,
  DEFAULT_FOLLOW_LATE_MS,
  resolvePollLimits,
} from "./follow.js";
export type {
  Follow,
  FollowEvent,
  FollowOptions,
  FollowStats,
  PollLimits,
  PollOutcome,
  PollSpend,
} from "./follow.js";
export type {
  GrantLimits,
  LimitName,
  QueryOptions,
  ReaderCursor,
  ReadStats,
  SkippedObject,
  UnverifiedObject,
  VerificationOptions,
  LoadResult,
  ReaderSession,
  GrantCallOptions,
  Source,
} from "./types.js";
export type { LogRecordLike } from "./record-like.js";
