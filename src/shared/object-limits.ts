/**
 * The per-object caps every v1 reader enforces (SPEC §5.2), in one leaf both sides
 * import: the reader cuts off any object beyond them, so the write path refuses a
 * batch size it could never read back (config validation, doctor).
 */

const MiB = 1024 * 1024;

/** Any object larger than this compressed is reported, never downloaded (§5.2). */
export const OBJECT_MAX_COMPRESSED_BYTES = 25 * MiB;
/** Decoding of one object stops here; the object is reported, not loaded (§5.2). */
export const OBJECT_MAX_DECODED_BYTES = 25 * MiB;
