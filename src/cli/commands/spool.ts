/**
 * `stowage spool status|retry [--path P] [--config F] [--json]` (SPEC §4): inspect
 * a durable spool, or re-arm its failed batches. Without --path, the spool of
 * the destination in stowage.config.* (or --config) is used: s3.delivery.spoolPath,
 * or its default ~/.stowage/s3/<target-hash>.db.
 */
import type { Command } from "commander";
import { formatBytes } from "../../shared/bytes.js";
import type { SpoolLookup } from "../../spool/configured-spool.js";
import type { CliIo, SetExitCode } from "../io.js";

interface SpoolOptions {
  path?: string;
  config?: string;
  json?: boolean;
  trustEndpoint: string[];
}

const common = (cmd: Command) =>
  cmd
    .option("--path <file>", "the spool file (default: the spool of the configured destination)")
    .option(
      "--config <file>",
      "logger config to take the destination from (default: stowage.config.* here)",
    )
    .option("--json", "machine-readable output")
    .option(
      "--trust-endpoint <host>",
      "trust this endpoint host while reading the config (repeatable)",
      (v: string, p: string[]) => [...p, v],
      [],
    );

const lookup = (opts: SpoolOptions, io: CliIo): SpoolLookup => ({
  path: opts.path,
  config: opts.config,
  cwd: io.cwd,
  env: io.env,
  trustedHosts: opts.trustEndpoint,
});

const OWNER_STATE = {
  live: "live",
  "dead-pid": "dead (its process is gone; the next logger adopts its work at once)",
  "lease-expired": "lease expired (adopted by the next logger)",
  closed: "closed with records left (adopted by the next logger)",
} as const;

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  const spool = program
    .command("spool")
    .description('inspect or re-arm a durable spool (s3.delivery.buffer: "sqlite")');

  common(
    spool
      .command("status")
      .description("records, pending and failed batches, and bytes held by a spool"),
  ).action(async (opts: SpoolOptions) => {
    const { inspectSpool } = await import("../../spool/configured-spool.js");
    const { path, from, status: s } = await inspectSpool(lookup(opts, io));
    if (opts.json) io.out(`${JSON.stringify({ path, ...s })}\n`);
    else {
      io.out(
        `spool ${path}\n  (from ${from})\n` +
          `  records  ${s.records} unsealed\n` +
          `  pending  ${s.pending} batches (${s.pendingRecords} records${s.leased ? `, ${s.leased} leased` : ""})\n` +
          `  failed   ${s.failed} batches (${s.failedRecords} records)\n` +
          `  bytes    ${formatBytes(s.bytes)} of payload\n` +
          s.owners
            .map(
              (o) =>
                `  owner    pid ${o.pid} on ${o.host}: ${OWNER_STATE[o.state]}, silent ${Math.round(o.silentMs / 1000)} s, ${o.records} records, ${o.leasedBatches} leased batches\n`,
            )
            .join(""),
      );
      if (s.failed > 0)
        io.out(
          `Fix the cause (see \`stowage doctor\`), then run \`stowage spool retry --path ${path}\`.\n`,
        );
    }
    setExit(0);
  });

  common(
    spool
      .command("retry")
      .description("re-arm failed batches so the next logger on this spool delivers them"),
  ).action(async (opts: SpoolOptions) => {
    const { rearmSpool } = await import("../../spool/configured-spool.js");
    const { path, rearmed } = await rearmSpool(lookup(opts, io));
    if (opts.json) io.out(`${JSON.stringify({ path, rearmed })}\n`);
    else
      io.out(
        `re-armed ${rearmed} failed batch${rearmed === 1 ? "" : "es"} in ${path}${rearmed ? "; the next logger on this spool delivers them" : ""}\n`,
      );
    setExit(0);
  });
}
