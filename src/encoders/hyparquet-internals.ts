/**
 * The one door to hyparquet-writer's internals (modules under `src/`, not its public
 * exports): the page header, RLE/bit-packed hybrid and footer writers and its snappy,
 * which the streaming Parquet writer needs below the library's whole-file API. They are
 * not a stable API, so the version is pinned exactly in package.json and checked here
 * (hyparquet-internals.test.ts fails on an upgrade that moves or renames them); lint
 * refuses a deep import anywhere else (lint/dependency-homes.js).
 */
export { writePageHeader } from "hyparquet-writer/src/datapage.js";
export { writeRleBitPackedHybrid } from "hyparquet-writer/src/encoding.js";
export { writeMetadata } from "hyparquet-writer/src/metadata.js";
export { snappyCompress } from "hyparquet-writer/src/snappy.js";

/** The hyparquet-writer version these internals were written against (package.json pins it). */
export const HYPARQUET_WRITER_VERSION = "0.17.0";
