/**
 * `stowage demo` (SPEC §6): a sample service writes a realistic workload through
 * the real logger into the local-directory store under `./.stowage/` (or a bucket
 * with `--s3`), then Studio opens on it.
 */
import type { Command } from "commander";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { StowageError } from "../../shared/errors.js";
import { defaultPathStyle } from "../../config/providers.js";
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
  const { createLogger } = await import("../../logger/create-logger.js");
  const { demoRecords } = await import("../../demo/workload.js");
  const { DEMO_FILES } = await import("../../demo/project-files.js");
  const root = resolve(io.cwd, opts.dir);
  const projectDir = join(root, "project");
  // A re-run starts from a fresh store instead of doubling it, but only a store the demo made.
  if (!opts.s3) await (await import("../../demo/demo-dir.js")).prepareDemoStore(root);
  for (const [rel, text] of Object.entries(DEMO_FILES)) {
    await mkdir(dirname(join(projectDir, rel)), { recursive: true });
    await writeFile(join(projectDir, rel), text);
  }
  const hours = positive(opts.hours, "--hours");
  const perHour = positive(opts.perHour, "--per-hour");
  const target = opts.s3
    ? s3Target(opts)
    : { destination: "local" as const, local: { path: join(root, "store") } };
  const log = createLogger({
    service: "orders-api",
    level: "debug",
    console: false,
    ...target,
  } as Parameters<typeof createLogger>[0]);
  const where = opts.s3 ? opts.s3 : join(root, "store");
  io.err(
    `stowage demo: writing ${hours * perHour} records over the last ${hours} h into ${where} …\n`,
  );
  const endMs = Date.now();
  let written = 0;
  for (const record of demoRecords({ endMs, hours, perHour })) {
    await log.write(record);
    written++;
  }
  log.info("demo finished", { records: written });
  const res = await log.close({ timeoutMs: 60_000 });
  const dest = res.destinations.sink;
  if (!res.ok) {
    io.err(
      `stowage demo: delivery failed: ${dest.failure ? `${dest.failure.category}: ${dest.failure.message}` : `${dest.pending} records pending`}\n`,
    );
    if (opts.s3)
      io.err("Hint: run `stowage doctor` with the same bucket settings to see what is wrong.\n");
    return 1;
  }
  io.out(
    `Wrote ${dest.delivered} records in ${dest.objects} objects (${hours} UTC hours, v1 gzip NDJSON) to ${where}\n` +
      `Sample project for source context: ${projectDir}\n`,
  );
  if (!opts.studio) return 0;
  return startDemoStudio(opts, io, opts.s3 ? opts.s3 : `file://${join(root, "store")}`, projectDir);
}

async function startDemoStudio(
  opts: DemoOptions,
  io: CliIo,
  source: string,
  projectDir: string,
): Promise<number> {
  const { startStudio, DEFAULT_STUDIO_PORT } = await import("../../studio/index.js");
  const spec = opts.s3
    ? {
        url: source,
        options: {
          region: opts.region ?? "us-east-1",
          ...(opts.endpoint
            ? {
                endpoint: opts.endpoint,
                forcePathStyle: opts.forcePathStyle ?? defaultPathStyle(opts.endpoint),
              }
            : {}),
        },
      }
    : { url: source };
  const port = opts.port !== undefined ? portNumber(opts.port) : DEFAULT_STUDIO_PORT;
  let studio;
  try {
    studio = await startStudio({
      source: spec,
      projectDir,
      port,
      host: opts.host ?? "127.0.0.1",
      open: opts.open && io.isTTY,
    });
  } catch (err) {
    if (opts.port !== undefined) throw err;
    // The default port is taken (another Studio, another program): take any free one.
    studio = await startStudio({
      source: spec,
      projectDir,
      port: 0,
      host: opts.host ?? "127.0.0.1",
      open: opts.open && io.isTTY,
    });
  }
  io.out(`\nStudio: ${studio.url}\n(press Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await studio.close();
  return 0;
}

function s3Target(opts: DemoOptions) {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(opts.s3 ?? "");
  if (!m) throw new StowageError("usage", `--s3 ${opts.s3 ?? ""}: expected s3://bucket/prefix`);
  return {
    destination: "s3" as const,
    s3: {
      bucket: m[1]!,
      prefix: m[2] ?? "",
      region: opts.region ?? "us-east-1",
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.forcePathStyle ? { forcePathStyle: true } : {}),
    },
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
