/**
 * The logger/Studio config file shape (SPEC §2.0) as zod schemas: service,
 * level, console, caller, redaction, destination choice, the `s3` block with
 * its §3.5 `delivery` options, `local`, Studio's §5.2 grant overrides, and the
 * outbound `connectors` (docs/connectors.md).
 */
import { z } from "zod";
import { LEVEL_ALIASES, LEVELS, type Level } from "../shared/levels.js";
import { s3Fields } from "./destination-schema.js";

/** Levels and their aliases come from the record model (one home). */
export { LEVEL_ALIASES, LEVELS, type Level };

const levelSchema = z.enum([...LEVELS, "warn", "fatal"]);
/** A byte size: a number of bytes or a string such as "1MiB", "512MB". */
const bytes = z.union([z.number().int().nonnegative(), z.string().min(1)]);
const positiveInt = z.number().int().positive();

export const deliverySchema = z.strictObject({
  flushIntervalMs: positiveInt.optional(),
  maxBatchBytes: bytes.optional(),
  maxBatchRecords: positiveInt.optional(),
  maxQueueBytes: bytes.optional(),
  maxRecordBytes: bytes.optional(),
  concurrency: positiveInt.max(64).optional(),
  requestTimeoutMs: positiveInt.optional(),
  maxAttempts: positiveInt.max(100).optional(),
  initialBackoffMs: z.number().int().nonnegative().optional(),
  maxBackoffMs: z.number().int().nonnegative().optional(),
  buffer: z.enum(["memory", "sqlite"]).optional(),
  spoolPath: z.string().min(1).optional(),
  maxSpoolBytes: bytes.optional(),
});

export const redactSchema = z.strictObject({
  keys: z.array(z.string().min(1)).optional(),
  paths: z.array(z.string().min(1)).optional(),
  patterns: z.array(z.union([z.string().min(1), z.instanceof(RegExp)])).optional(),
  disableDefaults: z.boolean().optional(),
});

export const studioSchema = z.strictObject({
  s3: z
    .strictObject({
      downloadBytes: bytes.optional(),
      listAttempts: positiveInt.optional(),
      getAttempts: positiveInt.optional(),
      records: positiveInt.optional(),
      decodedBytes: bytes.optional(),
      maxGrants: positiveInt.optional(),
    })
    .optional(),
});

/**
 * One outbound connector (docs/connectors.md): an OTLP/HTTP logs receiver that gets the
 * same redacted records as the destination. Secrets only by env reference (`headersEnv`).
 */
export const otlpHttpConnectorSchema = z.strictObject({
  type: z.literal("otlp-http"),
  /** Base URL of the receiver (`/v1/logs` is appended unless the path already ends so). */
  endpoint: z.string().min(1),
  /** Least severe level sent (default: every record the logger records). */
  level: levelSchema.optional(),
  /** HTTP header name → name of the environment variable holding its value. */
  headersEnv: z.record(z.string().min(1), z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional(),
  flushIntervalMs: positiveInt.optional(),
  maxBatchRecords: positiveInt.optional(),
  maxBatchBytes: bytes.optional(),
  maxQueueBytes: bytes.optional(),
  requestTimeoutMs: positiveInt.optional(),
  maxAttempts: positiveInt.max(100).optional(),
  initialBackoffMs: z.number().int().nonnegative().optional(),
  maxBackoffMs: z.number().int().nonnegative().optional(),
  /** The longest flush()/close() waits for this connector (its own bound). */
  flushTimeoutMs: positiveInt.optional(),
  /** Trust a non-loopback endpoint from code (TypeScript/JS config); not honoured in YAML/JSON. */
  trustEndpoint: z.boolean().optional(),
});

/** `connectors: { <name>: { type: "otlp-http", … } }`; `type` picks the kind. */
export const connectorSchema = z.discriminatedUnion("type", [otlpHttpConnectorSchema]);

/** The logger's `s3:` block: the §2.1 destination block plus `delivery`. */
export const loggerS3Schema = z.strictObject({ ...s3Fields, delivery: deliverySchema.optional() });
/** The logger's `local:` block: a directory, plus the same `delivery` options as `s3` (batching applies alike). */
const localSchema = z.strictObject({
  path: z.string().min(1),
  delivery: deliverySchema.optional(),
});

/** The export form of `destination`, as the logger takes it (an S3 one may carry `delivery`). */
export const loggerDestinationObjectSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("s3"), ...s3Fields, delivery: deliverySchema.optional() }),
  z.strictObject({
    type: z.literal("local"),
    path: z.string().min(1),
    delivery: deliverySchema.optional(),
  }),
]);

export const loggerConfigSchema = z.strictObject({
  service: z.string().min(1).optional(),
  level: levelSchema.optional(),
  console: z.union([z.literal("pretty"), z.literal("json"), z.literal(false)]).optional(),
  caller: z.boolean().optional(),
  redact: redactSchema.optional(),
  destination: z.union([z.enum(["s3", "local"]), loggerDestinationObjectSchema]).optional(),
  s3: loggerS3Schema.optional(),
  local: localSchema.optional(),
  studio: studioSchema.optional(),
  connectors: z.record(z.string(), connectorSchema).optional(),
});

/** What `defineConfig`/`createLogger` accept (camelCase; YAML may use snake_case). */
export type LoggerConfig = z.input<typeof loggerConfigSchema>;
export type DeliveryOptions = z.input<typeof deliverySchema>;
export type RedactOptions = z.input<typeof redactSchema>;
export type StudioOptions = z.input<typeof studioSchema>;
export type ConnectorOptions = z.input<typeof connectorSchema>;
