/**
 * The destination block (SPEC §2.1) as zod schemas, camelCase keys (YAML's
 * snake_case is rewritten first by keys.ts): the S3 block, the local-directory
 * block, and the export form `{ type: s3 | local, ... }`.
 */
import { z } from "zod";
import { PROVIDER_NAMES } from "./providers.js";

/** Static credentials, as the AWS SDK takes them. */
export interface CredentialIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
  expiration?: Date | undefined;
}

/** An async credential provider (refreshing is the provider's job). */
export type CredentialProvider = () => Promise<CredentialIdentity>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Looks like a key itself rather than the name of a variable holding it. */
const LOOKS_LIKE_KEY = /^(?:AKIA|ASIA)[A-Z0-9]{12,}$/;

const envName = z
  .string()
  .min(1)
  .refine((v) => ENV_NAME.test(v), {
    message: "must be the NAME of an environment variable (letters, digits, _), not its value",
  })
  .refine((v) => !LOOKS_LIKE_KEY.test(v), {
    message:
      "looks like an access key, not the name of an environment variable: put the key in a variable and name the variable here",
  });

const bucketName = z
  .string()
  .min(1)
  .refine((v) => !v.includes("/") && !v.includes(":"), {
    message: "must be a bucket name only (no `s3://`, no `/`): put the path in `prefix`",
  })
  .refine((v) => /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(v), {
    message:
      "is not a valid bucket name (3–63 characters: lower-case letters, digits, `.` and `-`)",
  })
  // The rest of S3's naming rules: a name that breaks one is refused by every request later.
  .refine((v) => !/\.\.|\.-|-\./.test(v), {
    message: "is not a valid bucket name (no `..`, `.-` or `-.` in a bucket name)",
  })
  .refine((v) => !/^\d{1,3}(\.\d{1,3}){3}$/.test(v), {
    message: "is not a valid bucket name (a bucket name must not look like an IP address)",
  });

const credentialsSchema = z.union([
  z.strictObject({
    accessKeyId: z.string().min(1),
    secretAccessKey: z.string().min(1),
    sessionToken: z.string().min(1).optional(),
    expiration: z.date().optional(),
  }),
  z.custom<CredentialProvider>((v) => typeof v === "function", {
    message:
      "must be {accessKeyId, secretAccessKey, sessionToken?} or an async function returning it",
  }),
]);

/** Fields of an S3 destination block (logger `s3:` block, or export `destination:` with `type: s3`). */
export const s3Fields = {
  bucket: bucketName,
  prefix: z.string().optional(),
  region: z
    .string()
    .regex(/^[a-z0-9-]+$/, { message: "must be a region name such as eu-west-1 (or auto for R2)" })
    .optional(),
  endpoint: z.string().min(1).optional(),
  forcePathStyle: z.boolean().optional(),
  provider: z.enum(PROVIDER_NAMES).optional(),
  accountId: z
    .string()
    .regex(/^[A-Za-z0-9]+$/, { message: "must be the Cloudflare account id (letters and digits)" })
    .optional(),
  credentials: credentialsSchema.optional(),
  accessKeyEnv: envName.optional(),
  secretKeyEnv: envName.optional(),
  sessionTokenEnv: envName.optional(),
  profile: z.string().min(1).optional(),
  allowAnonymous: z.boolean().optional(),
  trustEndpoint: z.boolean().optional(),
  /** Object Lock retention set on every object written (the bucket must have Object Lock enabled). */
  objectLock: z
    .strictObject({
      mode: z.enum(["GOVERNANCE", "COMPLIANCE"], {
        message: "must be GOVERNANCE or COMPLIANCE (see docs/retention.md)",
      }),
      retainDays: z
        .number()
        .int({ message: "must be a whole number of days" })
        .min(1, { message: "must be at least 1 day" })
        .max(36_500, { message: "must be at most 36,500 days (100 years)" }),
    })
    .optional(),
  /** What `stowage policy --lifecycle` generates and doctor checks against (docs/retention.md). */
  lifecycle: z
    .strictObject({
      expireDays: z.number().int().min(1, { message: "must be at least 1 day" }),
      transitionDays: z.number().int().min(1).optional(),
      transitionStorageClass: z.string().min(1).optional(),
    })
    .optional(),
};

export const s3BlockSchema = z.strictObject(s3Fields);
export const localBlockSchema = z.strictObject({ path: z.string().min(1) });

/** The export form: `{ type: "s3", bucket, ... }` or `{ type: "local", path }`. */
export const destinationObjectSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("s3"), ...s3Fields }),
  z.strictObject({ type: z.literal("local"), path: z.string().min(1) }),
]);

/** An S3 destination block as written in TypeScript (camelCase). */
export type S3DestinationOptions = z.input<typeof s3BlockSchema>;
/** A local-directory destination block. */
export type LocalDestinationOptions = z.input<typeof localBlockSchema>;
/** The export form of a destination. */
export type DestinationOptions = z.input<typeof destinationObjectSchema>;
