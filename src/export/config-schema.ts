/**
 * The export file's shape (SPEC §7.1) as zod schemas, camelCase keys (YAML's
 * snake_case is rewritten first by config/keys.ts). Cross-field rules (exactly one
 * of query/table, mode keys, compression per format, prefixes) live in config.ts.
 */
import { z } from "zod";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const size = z.union([z.number().int().nonnegative(), z.string().min(1)]);
const posInt = z.number().int().min(1);

/** One entry of `exports:` (camelCase after key normalisation). */
export const exportSchema = z.strictObject({
  name: z.string().refine((v) => NAME.test(v), {
    message:
      "must be filename-safe: letters, digits, `.`, `_`, `-` (at most 100, not starting with `.`/`-`/`_`)",
  }),
  query: z.string().min(1).optional(),
  table: z.string().min(1).optional(),
  mode: z.enum(["full", "incremental", "chunked", "keyset"]).default("full"),
  cursorColumn: z.string().min(1).optional(),
  keysetColumn: z.string().min(1).optional(),
  pageSize: posInt.max(10_000_000).optional(),
  chunkColumn: z.string().min(1).optional(),
  chunkSize: posInt.optional(),
  parallel: z.number().int().min(1).max(32).optional(),
  format: z.enum(["parquet", "csv", "ndjson"]).default("parquet"),
  compression: z.enum(["zstd", "snappy", "gzip", "none"]).optional(),
  maxFileSize: size.optional(),
  destination: z.unknown().optional(),
});

/** The whole export file. */
export const exportFileSchema = z.strictObject({
  source: z.strictObject({
    type: z.enum(["postgres", "mysql", "sqlite"]),
    url: z.string().min(1).optional(),
    urlEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be the NAME of an environment variable" })
      .optional(),
    path: z.string().min(1).optional(),
  }),
  exports: z.array(exportSchema).min(1),
  destination: z.unknown().optional(),
  tuning: z
    .strictObject({
      batchSize: posInt.max(1_000_000).optional(),
      partSize: size.optional(),
      queueSize: posInt.max(64).optional(),
      rowGroupSize: posInt.optional(),
      rowGroupBytes: size.optional(),
      encoderThread: z.boolean().optional(),
      maxAttempts: posInt.max(20).optional(),
      connectTimeoutMs: posInt.optional(),
      requestTimeoutMs: posInt.optional(),
    })
    .optional(),
});
