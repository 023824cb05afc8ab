/** `stowage logs` end to end (§5.6): the built CLI as a child process, against MinIO and a local-directory tree. */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStore } from "../src/store/local-store.js";
import { ConsoleEcho } from "../src/logger/console-echo.js";
import { minio, uniquePrefix, minioStore } from "./support/minio.js";
import { spreadRecords, writeV1, type FixtureRecord } from "./reader-fixtures.js";
import { BIN, runStowage, type CliRun } from "./support/cli.js";
import { startFaultProxy, type FaultProxy } from "./support/fault-proxy.js";
import { spawn } from "node:child_process";

const H = 3_600_000;
let home: string;

type Run = CliRun;

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runStowage(args, { home, env: { NODE_NO_WARNINGS: "1", ...env } });
}

const ndjson = (s: string) =>
  s
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as FixtureRecord);

beforeAll(() => {
  if (!existsSync(join(import.meta.dirname, "..", "dist", "cli", "commands", "logs.js"))) {
    throw new Error(
      "dist/ is missing: run `npx tsc -p tsconfig.build.json` (npm test does it in pretest)",
    );
  }
  home = mkdtempSync(join(tmpdir(), "stowage-logs-home-"));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("§5.6 stowage logs against MinIO", () => {
  const m = () => minio();
  let prefix: string;
  let records: FixtureRecord[];
  const now = Date.now();
  const s3Args = () => [
    `s3://${m().bucket}/${prefix}`,
    "--endpoint",
    m().endpoint,
    "--force-path-style",
    "--region",
    m().region,
  ];
  const creds = () => ({
    AWS_ACCESS_KEY_ID: m().accessKeyId,
    AWS_SECRET_ACCESS_KEY: m().secretAccessKey,
  });

  beforeAll(async () => {
    prefix = uniquePrefix("cli");
    const store = minioStore();
    records = spreadRecords(now - 3 * H, now - 60_000, 240);
    await writeV1(store, prefix, records, 20);
    store.close();
  });

  it("§5.6 --json prints every record of the range as NDJSON on stdout and one stats line on stderr (credentials from the environment)", async () => {
    const r = await run(
      ["logs", "--source", ...s3Args(), "--from", "4h", "--to", "now", "--json"],
      creds(),
    );
    expect(r.stderr).not.toContain(m().secretAccessKey);
    expect(r.code).toBe(0);
    const got = ndjson(r.stdout);
    expect(got.map((x) => x.seq).sort((a, b) => Number(a) - Number(b))).toEqual(
      records.map((x) => x.seq),
    );
    expect(r.stderr).toMatch(
      /^stowage logs: 240 records shown \(240 analysed\) · LIST [12] · GET \d+ .* grants 1\/5 · complete\n$/,
    );
    expect(r.stdout).not.toContain(m().secretAccessKey);
  });

  it("§5.6 --level, --where and --grep filter; --limit and --more spend further grants", async () => {
    const f = await run(
      [
        "logs",
        "--source",
        ...s3Args(),
        "--from",
        "4h",
        "--json",
        "--level",
        "warn",
        "--where",
        "data.route=/orders/3",
        "--grep",
        "REQUEST",
      ],
      creds(),
    );
    expect(f.code).toBe(0);
    const want = records.filter(
      (x) =>
        (x.level === "warning" || x.level === "error") &&
        (x.data as { route: string }).route === "/orders/3",
    );
    expect(want.length).toBeGreaterThan(0);
    expect(
      ndjson(f.stdout)
        .map((x) => x.seq)
        .sort((a, b) => Number(a) - Number(b)),
    ).toEqual(want.map((x) => x.seq));

    const p = await run(
      ["logs", "--source", ...s3Args(), "--from", "4h", "--limit", "records=50"],
      creds(),
    );
    expect(p.code).toBe(0);
    expect(p.stdout.trim().split("\n")).toHaveLength(50);
    expect(p.stderr).toMatch(/partial \(stopped by records\): run with --more 1/);
    const more = await run(
      [
        "logs",
        "--source",
        ...s3Args(),
        "--from",
        "4h",
        "--limit",
        "records=50",
        "--more",
        "2",
        "--json",
      ],
      creds(),
    );
    expect(ndjson(more.stdout)).toHaveLength(150);
    expect(new Set(ndjson(more.stdout).map((x) => x.seq)).size).toBe(150);
    expect(more.stderr).toMatch(/grants 3\/5/);
    // pretty: time, level, message, a few fields
    expect(p.stdout.split("\n")[0]).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}(INFO|DEBUG|WARNING|ERROR) +request \d+ handled {2}service=api {2}route=\/orders\/\d+ {2}ms=\d+$/,
    );
  });

  it("§2.2 credentials from --profile (shared credentials file) and from --access-key-env/--secret-key-env names", async () => {
    mkdirSync(join(home, ".aws"), { recursive: true });
    writeFileSync(
      join(home, ".aws", "credentials"),
      `[minio-test]\naws_access_key_id = ${m().accessKeyId}\naws_secret_access_key = ${m().secretAccessKey}\n`,
    );
    const viaProfile = await run([
      "logs",
      "--source",
      ...s3Args(),
      "--from",
      "4h",
      "--json",
      "--profile",
      "minio-test",
    ]);
    expect(viaProfile.code).toBe(0);
    expect(ndjson(viaProfile.stdout)).toHaveLength(240);
    const viaNames = await run(
      [
        "logs",
        "--source",
        ...s3Args(),
        "--from",
        "4h",
        "--json",
        "--access-key-env",
        "MY_AK",
        "--secret-key-env",
        "MY_SK",
      ],
      {
        MY_AK: m().accessKeyId,
        MY_SK: m().secretAccessKey,
      },
    );
    expect(viaNames.code).toBe(0);
    expect(ndjson(viaNames.stdout)).toHaveLength(240);
    expect(viaNames.stderr + viaProfile.stderr).not.toContain(m().secretAccessKey);
  });

  it("§5.6 storage failures exit 1 with a specific message and a doctor hint, never the secret", async () => {
    const bad = await run(["logs", "--source", ...s3Args(), "--from", "1h"], {
      AWS_ACCESS_KEY_ID: m().accessKeyId,
      AWS_SECRET_ACCESS_KEY: "wrong-secret-456",
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/access denied/);
    expect(bad.stderr).toMatch(/stowage doctor/);
    expect(bad.stderr).not.toContain("wrong-secret-456");
    const nob = await run(
      [
        "logs",
        "--source",
        `s3://no-such-bucket-zz/${prefix}`,
        "--endpoint",
        m().endpoint,
        "--force-path-style",
        "--from",
        "1h",
      ],
      creds(),
    );
    expect(nob.code).toBe(1);
    expect(nob.stderr).toMatch(/bucket does not exist/);
    const missingEnv = await run(
      ["logs", "--source", ...s3Args(), "--access-key-env", "MY_AK", "--secret-key-env", "MY_SK"],
      { MY_AK: "x" },
    );
    expect(missingEnv.code).toBe(2);
    expect(missingEnv.stderr).toMatch(/MY_SK is not set/);
  });
});

describe("§5.6 stowage logs against a local-directory tree", () => {
  let dir: string;
  const now = Date.now();
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "stowage-logs-"));
    await writeV1(
      new LocalStore({ root: dir }),
      "svc",
      spreadRecords(now - 2 * H, now - 1000, 90),
      15,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("§5.6 pretty output from file:///dir/prefix, newest first", async () => {
    const r = await run(["logs", "--source", pathToFileURL(join(dir, "svc")).href, "--from", "3h"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(90);
    expect(lines[0]).toContain("request 89 handled");
    expect(lines[89]).toContain("request 0 handled");
    expect(r.stderr).toMatch(/90 records shown .* complete/);
  });

  it("§5.6 exit 2 on a range over 7 days, an empty range, or bad arguments", async () => {
    const src = pathToFileURL(join(dir, "svc")).href;
    const week = await run(["logs", "--source", src, "--from", "8d"]);
    expect(week.code).toBe(2);
    expect(week.stderr).toMatch(/at most 7 days/);
    expect((await run(["logs", "--source", src, "--from", "1h", "--to", "2h"])).code).toBe(2);
    expect((await run(["logs", "--source", src, "--from", "soon"])).stderr).toMatch(/not a time/);
    expect((await run(["logs", "--source", src, "--where", "novalue"])).code).toBe(2);
    expect((await run(["logs", "--source", src, "--level", "loud"])).code).toBe(2);
    expect((await run(["logs", "--source", src, "--limit", "records=0"])).code).toBe(2);
    expect((await run(["logs", "--source", "ftp://x"])).code).toBe(2);
  });
});

describe("interrupts, throttling and missing stores tell the truth", () => {
  const m = () => minio();
  let prefix: string;
  let proxy: FaultProxy;
  const now = Date.now();
  const creds = () => ({
    AWS_ACCESS_KEY_ID: m().accessKeyId,
    AWS_SECRET_ACCESS_KEY: m().secretAccessKey,
  });
  const via = (endpoint: string) => [
    "logs",
    "--source",
    `s3://${m().bucket}/${prefix}`,
    "--endpoint",
    endpoint,
    "--force-path-style",
    "--region",
    m().region,
    "--from",
    "3h",
  ];
  beforeAll(async () => {
    prefix = uniquePrefix("cli-faults");
    const store = minioStore();
    await writeV1(store, prefix, spreadRecords(now - 2 * H, now - 60_000, 60), 10);
    store.close();
    proxy = await startFaultProxy(m().endpoint);
  });
  afterAll(() => proxy.close());

  it("a throttling endpoint: the retry waits keep the process alive; exit 1 with what happened (never exit 13 in silence)", async () => {
    proxy.setRule((r) => (r.kind === "list" ? "slowdown" : undefined));
    const r = await run([...via(proxy.endpoint), "--limit", "listAttempts=3"], creds());
    proxy.setRule(undefined);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/LIST 3 .*stopped by listAttempts/);
    expect(r.stderr).toMatch(/storage kept failing \(LIST .*SlowDown.*\)/);
  });

  it("no credentials anywhere: says so and how to provide them, not 'access denied'", async () => {
    const r = await run([...via(m().endpoint), "--limit", "listAttempts=2"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no credentials/i);
    expect(r.stderr).toMatch(/AWS_ACCESS_KEY_ID|--profile/);
    expect(r.stderr).not.toMatch(/access denied/i);
  });

  it("a closed endpoint: exit 1 and a message, not a silent exit", async () => {
    const closed = await startFaultProxy(m().endpoint);
    const endpoint = closed.endpoint;
    await closed.close();
    const r = await run([...via(endpoint), "--limit", "listAttempts=2"], creds());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stowage logs: |stowage: /);
    expect(r.stderr.trim().length).toBeGreaterThan(20);
  });

  it("Ctrl-C (SIGINT) stops a load stuck on a GET at once: stats line on stderr, exit 130", async () => {
    proxy.setRule((r) => (r.kind === "get" ? "stall" : undefined));
    const child = spawn(process.execPath, [BIN, ...via(proxy.endpoint)], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        AWS_EC2_METADATA_DISABLED: "true",
        NODE_NO_WARNINGS: "1",
        ...creds(),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = new Promise<number | null>((resolve) => child.on("close", resolve));
    while ((proxy.counts.get ?? 0) === 0) await new Promise((res) => setTimeout(res, 50));
    child.kill("SIGINT");
    expect(await code).toBe(130);
    proxy.setRule(undefined);
    // One LIST per UTC day folder of the default window: two when it crosses 00:00 UTC.
    expect(stderr).toMatch(/stowage logs: 0 records shown .*LIST [12] · GET [1-9].* · interrupted/);
    expect(stderr).toMatch(/interrupted; the records above/);
  });

  it("the doctor hint leads somewhere: `stowage doctor --source` takes the logs flags and checks LIST and GET If-Match", async () => {
    const src = via(m().endpoint).slice(1, -2); // --source … --region R (without --from)
    const ok = await run(["doctor", ...src], creds());
    expect(ok.stdout).toMatch(/\[OK\]\s+Credentials/);
    expect(ok.stdout).toMatch(/\[OK\]\s+Source S3\(.*\) lists .*\/v1\/ in order/);
    expect(ok.stdout).toMatch(/\[OK\]\s+GetObject If-Match \(wrong ETag answers 412\)/);
    expect(ok.code).toBe(0);
    const denied = await run(["doctor", ...src], {
      AWS_ACCESS_KEY_ID: m().accessKeyId,
      AWS_SECRET_ACCESS_KEY: "wrong-secret-789",
    });
    expect(denied.code).toBe(1);
    expect(denied.stdout).toMatch(/\[FAIL\].*auth error/);
    expect(denied.stdout + denied.stderr).not.toContain("wrong-secret-789");
    const missing = await run(["doctor", "--source", join(tmpdir(), "stowage-no-such-store")]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/\[FAIL\].*does not exist/);
    const hint = await run([...via(m().endpoint)], {
      AWS_ACCESS_KEY_ID: m().accessKeyId,
      AWS_SECRET_ACCESS_KEY: "wrong-secret-789",
    });
    expect(hint.stderr).toMatch(/stowage doctor --source/);
  });

  it("--source naming a missing directory, a file, or file:///missing: the store does not exist, exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stowage-nostore-"));
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    try {
      for (const src of [join(dir, "no-such-dir"), pathToFileURL(join(dir, "missing")).href]) {
        const r = await run(["logs", "--source", src, "--from", "1h"]);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/the store .* does not exist/);
        expect(r.stderr).not.toMatch(/complete/);
      }
      const f = await run(["logs", "--source", file, "--from", "1h"]);
      expect(f.code).toBe(1);
      expect(f.stderr).toMatch(/is a file, not a directory/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("terminal output cannot be turned against the reader", () => {
  it("§4 the logger's pretty console echo escapes them too (stack line breaks kept)", () => {
    let out = "";
    const echo = new ConsoleEcho("pretty", { write: (c: string) => ((out += c), true) }, true);
    const line = JSON.stringify({
      timestamp: "2026-11-03T10:00:00.000Z",
      level: "error",
      message: "x\u001b]0;owned\u0007\rdone",
      data: { k: "\u009b2J" },
      error: { name: "Error", message: "m", stack: "Error: m\n    at f (a.ts:1:1)\u001b[2J" },
    });
    echo.echo(line, "error");
    const body = out.replace(/\u001b\[(?:3\d|9\d|0)m/g, ""); // the echo's own level colour
    expect(body).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(body).toContain("x\\e]0;owned\\x07\\rdone");
    expect(body).toContain("Error: m\n    at f (a.ts:1:1)\\e[2J");
  });

  it("§4 control sequences in stored messages are printed escaped in pretty mode, raw JSON stays JSON", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stowage-hostile-"));
    try {
      const now = Date.now();
      const hostile = "pay\u001b]0;owned\u0007\u001b[2J\rfake ok\u009b31m";
      await writeV1(
        new LocalStore({ root: dir }),
        "svc",
        spreadRecords(now - 60_000, now - 1000, 1, () => ({
          message: hostile,
          data: { k: "\u001b[31m" },
        })),
        1,
      );
      const src = pathToFileURL(join(dir, "svc")).href;
      const pretty = await run(["logs", "--source", src, "--from", "1h"]);
      expect(pretty.code).toBe(0);
      expect(pretty.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(pretty.stdout).toContain("pay\\e]0;owned\\x07\\e[2J\\rfake ok\\x9b31m");
      const json = await run(["logs", "--source", src, "--from", "1h", "--json"]);
      expect(ndjson(json.stdout)[0]!.message).toBe(hostile);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
