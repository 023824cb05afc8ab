/**
 * `stowage verify [--config F | --source URL …] [--from T] [--to T] [--depth metadata|full] [--json]`:
 * proves that the log objects of a time range are intact (stored SHA-256, format-v1
 * metadata consistent with the key, bytes re-hashed and lines counted at --depth
 * full) and, when the config sets `objectLock` (or `--object-lock` with `--source`),
 * locked long enough. `--source` takes the source flags of `logs` and `doctor`, for
 * auditors without the app's config. `--compacted` also verifies the range's compacted hours
 * (verify/verify-compacted.ts).
 * Exit 0 all intact, 3 an integrity failure, 1 could not verify, 2 config/usage error.
 */
import type { Command } from "commander";
import type {
  LifecycleSpec,
  ObjectLockSpec,
  ResolvedDestination,
} from "../../config/destination.js";
import { isStowageError, StowageError } from "../../shared/errors.js";
import type { CliIo, SetExitCode } from "../io.js";
import {
  addSourceFlags,
  collect,
  sourceOptionsFromFlags,
  type SourceFlags,
} from "../source-flags.js";
import { loadCheckedPlan } from "./doctor.js";

interface VerifyFlags extends SourceFlags {
  config: string[];
  from: string;
  to: string;
  depth: string;
  json?: boolean;
  source?: string;
  objectLock?: string;
  expireDays?: string;
  compacted?: boolean;
  dest?: string;
}

export function register(program: Command, io: CliIo, setExit: SetExitCode): void {
  const cmd = program.command("verify");
  cmd
    .description(
      "prove the log objects of a time range are intact and locked as configured (exit 0 ok, 3 integrity failure, 1 could not verify)",
    )
    .option(
      "--config <file>",
      "logger config (repeatable); default: stowage.config.* here",
      collect,
      [],
    )
    .option(
      "--source <url>",
      "verify s3://bucket/prefix or file:///dir (the directory holding v1/) without a config; takes the source flags of `stowage logs`",
    )
    .option(
      "--object-lock <mode:days>",
      "with --source: require Object Lock, e.g. COMPLIANCE:365 (what the config's object_lock says)",
    )
    .option(
      "--expire-days <n>",
      "with --source: the lifecycle expiry in days (a delete marker after it is the expiry, not a finding)",
    )
    .option("--from <time>", "start of the range: ISO time or relative (7d, 24h)", "24h")
    .option("--to <time>", "end of the range", "now")
    .option(
      "--depth <depth>",
      "metadata (HEAD each object) or full (download, re-hash, count lines)",
      "metadata",
    )
    .option(
      "--compacted",
      "also verify the range's compacted hours: manifests, parts, row counts (docs/compaction.md)",
    )
    .option(
      "--dest <prefix>",
      "with --compacted: the compaction destination (default <prefix>/parquet/)",
    )
    .option("--json", "print a JSON report on stdout")
    .action(async (flags: VerifyFlags) => {
      if (flags.depth !== "metadata" && flags.depth !== "full")
        throw new StowageError("usage", `--depth must be metadata or full, not "${flags.depth}"`);
      const { parseTimeArg } = await import("../../reader/index.js");
      const now = Date.now();
      const fromMs = parseTimeArg(flags.from, now, "--from");
      const toMs = parseTimeArg(flags.to, now, "--to");
      if (fromMs > toMs) throw new StowageError("usage", "--from must not be after --to");
      if (!flags.source) checkNoSourceFlags(flags);
      const plan = flags.source
        ? { targets: [await sourceTarget(flags, io)] }
        : await loadCheckedPlan(flags.config, io, flags.trustEndpoint);
      const targets = plan.targets.filter((t) => t.kind !== "export");
      const exportFiles = [
        ...new Set(plan.targets.flatMap((t) => (t.kind === "export" && t.file ? [t.file] : []))),
      ];
      const exportReports = [];
      let exportIntegrity = false;
      for (const file of exportFiles) {
        const { verifyExportFile } = await import("./verify-export.js");
        const out = await verifyExportFile(file, flags.depth, io, flags.trustEndpoint, !flags.json);
        exportReports.push(...out.reports);
        exportIntegrity ||= out.integrity;
        if (out.unverified) {
          if (flags.json)
            io.out(`${JSON.stringify({ ok: false, exports: exportReports }, null, 2)}\n`);
          setExit(1);
          return;
        }
      }
      if (targets.length === 0) {
        if (flags.json)
          io.out(`${JSON.stringify({ ok: !exportIntegrity, exports: exportReports }, null, 2)}\n`);
        setExit(exportIntegrity ? 3 : 0);
        return;
      }
      const { openStore } = await import("../../store/open-store.js");
      const { verifyLogs } = await import("../../verify/verify-logs.js");
      const { escapeTerminal } = await import("../../record/terminal-safe.js");
      const reports = [];
      let failed = false;
      for (const t of targets) {
        const dest = t.destination;
        const where =
          dest.type === "s3" ? `s3://${dest.bucket}/${dest.prefix}` : `file://${dest.path}`;
        const { store } = openStore(dest, { env: io.env });
        try {
          const lock = dest.type === "s3" ? dest.objectLock : undefined;
          const expireDays = dest.type === "s3" ? dest.lifecycle?.expireDays : undefined;
          const report = await verifyLogs(store, {
            prefix: dest.type === "s3" ? dest.prefix : "",
            fromMs,
            toMs,
            depth: flags.depth,
            ...(lock ? { objectLock: lock } : {}),
            ...(expireDays !== undefined ? { expireDays } : {}),
            ...(io.isTTY && !flags.json
              ? {
                  onProgress: (p) =>
                    io.err(
                      `\r${where}: ${p.checked} objects checked, ${p.failures} failing, at ${new Date(p.hour).toISOString().slice(0, 13)}h `,
                    ),
                }
              : {}),
          });
          if (io.isTTY && !flags.json) io.err("\n");
          const compacted = flags.compacted
            ? await verifyCompactedHours(store, dest, flags, fromMs, toMs, lock)
            : undefined;
          failed ||= !report.ok || (compacted !== undefined && !compacted.ok);
          reports.push({ target: where, ...report, ...(compacted ? { compacted } : {}) });
          if (!flags.json) {
            io.out(
              `${report.ok ? "[OK]  " : "[FAIL] "}${where}: ${report.checked} objects in ${report.hours} hours checked at depth ${report.depth}` +
                `${lock ? `, Object Lock ${lock.mode} ${lock.retainDays} d required` : ""} ` +
                `(${report.requests.list} LIST, ${report.requests.head} HEAD, ${report.requests.get} GET)\n`,
            );
            // Keys and problems come from storage: a hostile key must not drive the terminal.
            for (const f of [...report.failures, ...(compacted?.failures ?? [])])
              io.out(
                `  ${escapeTerminal(f.key)}\n${f.problems.map((p) => `    - ${escapeTerminal(p)}\n`).join("")}`,
              );
            if (compacted)
              io.out(
                `${compacted.ok ? "[OK]  " : "[FAIL] "}${where} compacted (${compacted.dest}): ${compacted.manifests} manifest(s) in ${compacted.hours} hour(s), ${compacted.parts} part(s), ${compacted.rows} rows checked at depth ${flags.depth}` +
                  `${compacted.sourcesGone ? `; ${compacted.sourcesGone} source object(s) already expired` : ""} ` +
                  `(${compacted.requests.list} LIST, ${compacted.requests.head} HEAD, ${compacted.requests.get} GET)\n`,
              );
          }
        } catch (err) {
          if (isStowageError(err, "config", "usage", "policy")) throw err;
          const { classifyError } = await import("../../store/classify-error.js");
          const c = classifyError(err);
          throw new StowageError(
            "storage",
            // The provider's message may name a stored key: escaped like the findings.
            escapeTerminal(
              `could not verify ${where}: ${c.category === "other" ? "" : `${c.category} — `}${c.code}${c.status ? ` (HTTP ${c.status})` : ""}: ${c.message}`,
            ),
            {
              cause: err,
              hint: flags.source
                ? "run `stowage doctor --source` with the same URL and flags to check credentials, bucket, region and endpoint"
                : "run `stowage doctor` to check credentials, bucket, region and endpoint",
            },
          );
        } finally {
          store.close();
        }
      }
      failed ||= exportIntegrity;
      if (flags.json)
        io.out(
          `${JSON.stringify({ ok: !failed, targets: reports, ...(exportReports.length ? { exports: exportReports } : {}) }, null, 2)}\n`,
        );
      setExit(failed ? 3 : 0);
    });
  // --region, --endpoint, credentials by variable name, --trust-endpoint (also read with --config).
  addSourceFlags(cmd);
}

/** `--compacted`: the range's compacted hours under the destination (verify/verify-compacted.ts). */
async function verifyCompactedHours(
  store: import("../../store/object-store.js").ObjectStore,
  dest: ResolvedDestination,
  flags: VerifyFlags,
  fromMs: number,
  toMs: number,
  lock: ObjectLockSpec | undefined,
) {
  const { verifyCompacted } = await import("../../verify/verify-compacted.js");
  const { VERIFY_RETRY } = await import("../../config/retry-defaults.js");
  return verifyCompacted(store, {
    prefix: dest.type === "s3" ? dest.prefix : "",
    dest: flags.dest,
    fromMs,
    toMs,
    depth: flags.depth === "full" ? "full" : "metadata",
    objectLock: lock,
    retry: VERIFY_RETRY,
  });
}

/** `--source URL` with the source flags: the one log target it names (no config read). */
async function sourceTarget(
  flags: VerifyFlags,
  io: CliIo,
): Promise<{ destination: ResolvedDestination; kind: "logs" }> {
  if (flags.config.length > 0)
    throw new StowageError("usage", "--source and --config are alternatives: pass one of them");
  const url = String(flags.source).trim();
  const lock = flags.objectLock === undefined ? undefined : parseLock(flags.objectLock);
  const expireDays =
    flags.expireDays === undefined ? undefined : wholeDays(flags.expireDays, "--expire-days");
  if (!/^s3:/i.test(url)) {
    if (lock || expireDays !== undefined)
      throw new StowageError("usage", "--object-lock and --expire-days go with an s3:// source");
    const { fileURLToPath } = await import("node:url");
    const { isAbsolute, resolve } = await import("node:path");
    let path: string;
    try {
      path = /^file:/i.test(url) ? fileURLToPath(new URL(url)) : url;
    } catch {
      throw new StowageError("usage", `--source "${url.slice(0, 80)}" is not a file URL`);
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path) || path === "")
      throw new StowageError(
        "usage",
        `--source "${url.slice(0, 80)}" is not supported; use s3://bucket/prefix or file:///dir (the directory holding v1/)`,
      );
    const root = isAbsolute(path) ? path : resolve(io.cwd, path);
    // A mistyped folder is not an empty store that verifies as "[OK] 0 objects".
    const { checkLocalRoot } = await import("../../reader/source.js");
    await checkLocalRoot(root);
    return { destination: { type: "local", path: root }, kind: "logs" };
  }
  const { s3SourceDestination } = await import("../../config/s3-source.js");
  const dest = s3SourceDestination(
    url,
    { ...sourceOptionsFromFlags(flags), trustedHosts: flags.trustEndpoint },
    io.env,
    "--source",
  );
  const lifecycle: LifecycleSpec | undefined =
    expireDays === undefined ? undefined : { expireDays };
  return {
    destination: {
      ...dest,
      ...(lock ? { objectLock: lock } : {}),
      ...(lifecycle ? { lifecycle } : {}),
    },
    kind: "logs",
  };

  function parseLock(text: string): ObjectLockSpec {
    const m = /^(GOVERNANCE|COMPLIANCE):(\d+)$/i.exec(text.trim());
    if (!m)
      throw new StowageError(
        "usage",
        `--object-lock must look like COMPLIANCE:365 or GOVERNANCE:30 (mode:retain days), got "${text}"`,
      );
    return {
      mode: m[1]!.toUpperCase() as ObjectLockSpec["mode"],
      retainDays: wholeDays(m[2]!, "--object-lock days"),
    };
  }

  function wholeDays(text: string, what: string): number {
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < 1)
      throw new StowageError(
        "usage",
        `${what} must be a whole number of days (1 or more), got "${text}"`,
      );
    return n;
  }
}

/** The source flags mean nothing without --source: refuse them rather than ignore them. */
function checkNoSourceFlags(flags: VerifyFlags): void {
  const given = [
    ["--region", flags.region],
    ["--endpoint", flags.endpoint],
    ["--force-path-style", flags.forcePathStyle],
    ["--profile", flags.profile],
    ["--access-key-env", flags.accessKeyEnv],
    ["--secret-key-env", flags.secretKeyEnv],
    ["--session-token-env", flags.sessionTokenEnv],
    ["--object-lock", flags.objectLock],
    ["--expire-days", flags.expireDays],
  ].filter(([, v]) => v !== undefined);
  if (given.length > 0)
    throw new StowageError(
      "usage",
      `${given.map(([n]) => n).join(", ")} ${given.length > 1 ? "go" : "goes"} with --source (a config names its own bucket, endpoint and credentials)`,
    );
}
