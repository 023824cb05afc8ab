/**
 * `stowage demo` (SPEC §6): a sample service writes a realistic workload through
 * the real logger into the local-directory store under `./.stowage/` (or a bucket
 * with `--s3`), then Studio opens on it.
 */
import type { Command } from "commander";
import { resolve } from "node:path";
import { StowageError } from "../../shared/errors.js";
import type { CliIo, SetExitCode } from "../io.js";

interface DemoOptions {
  dir: string;
  hours: string;
  perHour: string;
  s3?: string;
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  studio: boolean;
  open: boolean;
  port?: string;
  host?: string;
}

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  program
    .command("demo")
    .description(
      "write a realistic sample workload through the real logger, then open Studio on it",
    )
    .option("--dir <dir>", "demo directory (its store is replaced on every run)", ".stowage/demo")
    .option("--hours <n>", "hours of back-dated events", "6")
    .option("--per-hour <n>", "records per hour", "1500")
    .option(
      "--s3 <url>",
      "write to s3://bucket/prefix instead of the local store (credentials: AWS default chain)",
    )
    .option("--region <region>", "region for --s3", "us-east-1")
    .option("--endpoint <url>", "S3 endpoint for --s3 (MinIO, R2, …; endpoint policy applies)")
    .option("--force-path-style", "path-style addressing for --s3 (MinIO)")
    .option("--no-studio", "only write the workload; do not start Studio")
    .option("--no-open", "do not open a browser")
    .option("--port <n>", "Studio port")
    .option("--host <host>", "Studio host", "127.0.0.1")
    .action(async (opts: DemoOptions) => {
      setExit(await runDemo(opts, io));
    });
}

async function runDemo(opts: DemoOptions, io: CliIo): Promise<number> {
  const root = resolve(io.cwd, opts.dir);
  const hours = positive(opts.hours, "--hours");
  const perHour = positive(opts.perHour, "--per-hour");
  const s3 = opts.s3 === undefined ? undefined : bucketOf(opts.s3, opts);
  const { writeDemo } = await import("../../demo/run-demo.js");
  const demo = await writeDemo({
    root,
    hours,
    perHour,
    s3,
    onWriting: (records, where) =>
      io.err(`stowage demo: writing ${records} records over the last ${hours} h into ${where} …\n`),
  });
  const dest = demo.delivery;
  if (!demo.ok) {
    io.err(
      `stowage demo: delivery failed: ${dest.failure ? `${dest.failure.category}: ${dest.failure.message}` : `${dest.pending} records pending`}\n`,
    );
    if (opts.s3)
      io.err("Hint: run `stowage doctor` with the same bucket settings to see what is wrong.\n");
    return 1;
  }
  io.out(
    `Wrote ${dest.delivered} records in ${dest.objects} objects (${hours} UTC hours, v1 gzip NDJSON) to ${demo.where}\n` +
      `Sample project for source context: ${demo.projectDir}\n`,
  );
  if (!opts.studio) return 0;
  const { startStudioAnyPort } = await import("../../studio/project-studio.js");
  const studio = await startStudioAnyPort({
    source: demo.source,
    projectDir: demo.projectDir,
    ...(opts.port !== undefined ? { port: portNumber(opts.port) } : {}),
    host: opts.host ?? "127.0.0.1",
    open: opts.open && io.isTTY,
  });
  io.out(`\nStudio: ${studio.url}\n(press Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await studio.close();
  return 0;
}

/** `--s3 s3://bucket/prefix` and the flags that go with it. */
function bucketOf(url: string, opts: DemoOptions): import("../../demo/run-demo.js").DemoBucket {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!m) throw new StowageError("usage", `--s3 ${url}: expected s3://bucket/prefix`);
  return {
    url,
    bucket: m[1]!,
    prefix: m[2] ?? "",
    region: opts.region ?? "us-east-1",
    endpoint: opts.endpoint,
    forcePathStyle: opts.forcePathStyle,
  };
}

function positive(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new StowageError("usage", `${flag} must be a positive integer, got "${v}"`);
  return n;
}

function portNumber(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new StowageError("usage", `--port must be 0–65535, got "${v}"`);
  return n;
}
