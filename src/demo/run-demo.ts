/**
 * `stowage demo`'s run: the sample project's files (for source context), then a
 * realistic back-dated workload written through the real logger into the demo's
 * local store — replaced on every run, and only a store the demo made — or into a
 * bucket; and the source Studio opens on it.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { defaultPathStyle } from "../config/providers.js";
import type { DestinationResult } from "../delivery/sink.js";
import { createLogger } from "../logger/create-logger.js";
import type { OpenSourceOptions } from "../reader/index.js";
import { prepareDemoStore } from "./demo-dir.js";
import { DEMO_FILES } from "./project-files.js";
import { demoRecords } from "./workload.js";

/** A bucket to write the demo into instead of the local store (credentials: the AWS default chain). */
export interface DemoBucket {
  /** `s3://bucket/prefix` as given: shown, and what Studio opens. */
  url: string;
  bucket: string;
  prefix: string;
  region: string;
  endpoint?: string | undefined;
  /** Unset: the logger's default, and Studio's default for the endpoint. */
  forcePathStyle?: boolean | undefined;
}

export interface DemoOptions {
  /** The demo directory (absolute): `store/`, `project/` and the marker. */
  root: string;
  hours: number;
  perHour: number;
  s3?: DemoBucket | undefined;
  /** Called once the store is ready, before the records are written. */
  onWriting?: (records: number, where: string) => void;
}

export interface DemoResult {
  /** Everything written was delivered. */
  ok: boolean;
  /** The store's directory, or the bucket URL. */
  where: string;
  /** The sample project whose files feed source context. */
  projectDir: string;
  /** The destination's counts: delivered, objects, pending, the failure if any. */
  delivery: DestinationResult;
  /** What Studio opens to show the demo's records. */
  source: { url: string; options?: OpenSourceOptions };
}

function loggerTarget(root: string, s3: DemoBucket | undefined) {
  if (!s3) return { destination: "local" as const, local: { path: join(root, "store") } };
  return {
    destination: "s3" as const,
    s3: {
      bucket: s3.bucket,
      prefix: s3.prefix,
      region: s3.region,
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      ...(s3.forcePathStyle ? { forcePathStyle: true } : {}),
    },
  };
}

function studioSource(root: string, s3: DemoBucket | undefined): DemoResult["source"] {
  if (!s3) return { url: `file://${join(root, "store")}` };
  const options: OpenSourceOptions = {
    region: s3.region,
    ...(s3.endpoint
      ? {
          endpoint: s3.endpoint,
          forcePathStyle: s3.forcePathStyle ?? defaultPathStyle(s3.endpoint),
        }
      : {}),
  };
  return { url: s3.url, options };
}

/**
 * Writes the sample project and `hours × perHour` records (plus a closing one) ending now.
 * @example const demo = await writeDemo({ root: "/app/.stowage/demo", hours: 6, perHour: 1500 });
 */
export async function writeDemo(o: DemoOptions): Promise<DemoResult> {
  const projectDir = join(o.root, "project");
  // A re-run starts from a fresh store instead of doubling it, but only a store the demo made.
  if (!o.s3) await prepareDemoStore(o.root);
  for (const [rel, text] of Object.entries(DEMO_FILES)) {
    await mkdir(dirname(join(projectDir, rel)), { recursive: true });
    await writeFile(join(projectDir, rel), text);
  }
  const log = createLogger({
    service: "orders-api",
    level: "debug",
    console: false,
    ...loggerTarget(o.root, o.s3),
  } as Parameters<typeof createLogger>[0]);
  const where = o.s3 ? o.s3.url : join(o.root, "store");
  o.onWriting?.(o.hours * o.perHour, where);
  let written = 0;
  for (const record of demoRecords({ endMs: Date.now(), hours: o.hours, perHour: o.perHour })) {
    await log.write(record);
    written++;
  }
  log.info("demo finished", { records: written });
  const res = await log.close({ timeoutMs: 60_000 });
  return {
    ok: res.ok,
    where,
    projectDir,
    delivery: res.destinations.sink,
    source: studioSource(o.root, o.s3),
  };
}
