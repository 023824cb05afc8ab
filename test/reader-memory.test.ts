/**
 * memory follows the allowances. A store of objects made of `{}` lines
 * (~24 KiB compressed, ~24 MiB decoded, metadata claiming 1 kB decoded) is read by
 * `stowage logs` and by 10 Studio loads, each in a child process whose peak RSS is
 * reported by the process itself (`resourceUsage().maxRSS`) and must stay under 256 MB.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStore } from "../src/store/local-store.js";
import { putRaw, v1Key } from "./reader-fixtures.js";
import { BIN } from "./support/cli.js";

const MB = 1024 * 1024;
const LIMIT_MB = 256;
let dir: string;
let preload: string;

/** Runs node with a preload that prints the peak RSS on exit; returns it (MiB) and the output. */
function peakRss(args: string[]): Promise<{ mb: number; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", pathToFileURL(preload).href, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: dir, NODE_NO_WARNINGS: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const m = /peak-rss-kb=(\d+)/.exec(stderr);
      resolve({ mb: m ? Number(m[1]) / 1024 : NaN, code, stderr });
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "stowage-memory-"));
  preload = join(dir, "peak-rss.mjs");
  writeFileSync(
    preload,
    'process.on("exit", () => process.stderr.write(`peak-rss-kb=${process.resourceUsage().maxRSS}\\n`));\n',
  );
  const store = new LocalStore({ root: join(dir, "store") });
  const body = gzipSync(Buffer.from("{}\n".repeat(8 * MB)), { level: 9 }); // 24 MiB decoded
  expect(body.length).toBeLessThan(64 * 1024);
  const now = Date.now();
  for (let i = 0; i < 8; i++) {
    const t = now - 20 * 60_000 - i * 1000;
    await putRaw(store, v1Key("app", t, t + 500), body, {
      minMs: t,
      maxMs: t + 500,
      records: 1,
      decodedBytes: 1000, // lies: the reader must not trust it for memory
    });
  }
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("peak RSS over objects of `{}` lines", () => {
  it(`§2 stowage logs (5 grants) stays under ${LIMIT_MB} MB`, async () => {
    const src = pathToFileURL(join(dir, "store", "app")).href;
    const r = await peakRss([BIN, "logs", "--source", src, "--from", "2h", "--more", "4"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/not JSON records|skipped/);
    console.log(`stowage logs peak RSS: ${r.mb.toFixed(0)} MB`);
    expect(r.mb).toBeLessThan(LIMIT_MB);
  }, 120_000);

  it(`§2 10 Studio loads in one process stay under ${LIMIT_MB} MB`, async () => {
    const script = join(dir, "studio-loads.mjs");
    const studioModule = pathToFileURL(
      join(import.meta.dirname, "..", "dist", "studio", "index.js"),
    ).href;
    writeFileSync(
      script,
      `import { startStudio } from ${JSON.stringify(studioModule)};
const studio = await startStudio({ source: { url: ${JSON.stringify(pathToFileURL(join(dir, "store", "app")).href)} }, port: 0, open: false });
for (let i = 0; i < 10; i++) {
  const res = await fetch(\`http://127.0.0.1:\${studio.port}/api/load\`, {
    method: "POST",
    headers: { authorization: \`Bearer \${studio.token}\`, "content-type": "application/json" },
    body: JSON.stringify({ from: Date.now() - 3_600_000, to: Date.now() }),
  });
  if (res.status !== 200) throw new Error(\`load \${i}: HTTP \${res.status} \${await res.text()}\`);
  await res.json();
}
await studio.close();
`,
    );
    const r = await peakRss([script]);
    expect(r.code, r.stderr).toBe(0);
    console.log(`Studio, 10 loads: peak RSS ${r.mb.toFixed(0)} MB`);
    expect(r.mb).toBeLessThan(LIMIT_MB);
  }, 180_000);
});
