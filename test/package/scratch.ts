/**
 * A scratch project outside the repository with the packed tarball installed
 * the way a user installs it (`npm install ./stowage-x.tgz`), for the tarball test.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface Packed {
  tarball: string;
  /** Bytes of the .tgz and of its contents. */
  size: number;
  unpackedSize: number;
  files: string[];
}

export interface Scratch {
  /** The temporary directory holding the tarball and the project; removed by the test. */
  root: string;
  dir: string;
  packed: Packed;
  /** The installed package: node_modules/stowage. */
  installed: string;
  manifest: { exports: Record<string, unknown>; peerDependencies?: Record<string, string> };
}

// A child npm must not inherit the settings of an `npm run` that started the tests.
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

/** Runs a command; throws with its output when it fails. */
export function run(cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: cleanEnv(), timeout: 300_000 });
  if (r.status !== 0) {
    throw new Error(
      `\`${cmd} ${args.join(" ")}\` in ${cwd} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}\n${r.stderr}`,
    );
  }
  return r;
}

/** `npm pack` of the repository (dist/ must be built) into a fresh temporary directory. */
export function pack(into: string): Packed {
  const r = run("npm", ["pack", "--json", "--pack-destination", into], REPO);
  const [info] = JSON.parse(r.stdout) as {
    filename: string;
    size: number;
    unpackedSize: number;
    files: { path: string }[];
  }[];
  return {
    tarball: join(into, info!.filename),
    size: info!.size,
    unpackedSize: info!.unpackedSize,
    files: info!.files.map((f) => f.path),
  };
}

const devVersion = (name: string): string | undefined =>
  (
    JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies[name];

/**
 * Packs, then installs the tarball into a project under the system temp dir. Peer
 * dependencies (the frameworks of the bridge subpaths) and their `@types/*` are
 * installed beside it, at the versions the repository tests with. Install scripts
 * are skipped: better-sqlite3 gets the binary the repository's install compiled
 * (same pinned version), because its prebuilt binary cannot be downloaded here.
 */
export function createScratch(): Scratch {
  const root = mkdtempSync(join(tmpdir(), "stowage-package-"));
  const packed = pack(root);
  const dir = join(root, "app");
  mkdirSync(dir);
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "scratch-app", private: true, type: "module" }, null, 2),
  );
  const manifest = JSON.parse(
    run("tar", ["-xzOf", packed.tarball, "package/package.json"], root).stdout,
  ) as Scratch["manifest"];
  const extras: string[] = ["@types/node"];
  for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
    extras.push(peer);
    if (!peer.startsWith("@types/") && devVersion(`@types/${peer}`)) extras.push(`@types/${peer}`);
  }
  const specs = extras.map((n) => `${n}@${devVersion(n) ?? manifest.peerDependencies?.[n] ?? "*"}`);
  run(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      packed.tarball,
      ...specs,
    ],
    dir,
  );
  const binary = join("build", "Release", "better_sqlite3.node");
  const target = join(dir, "node_modules", "better-sqlite3");
  if (existsSync(target) && !existsSync(join(target, binary))) {
    mkdirSync(join(target, "build", "Release"), { recursive: true });
    copyFileSync(join(REPO, "node_modules", "better-sqlite3", binary), join(target, binary));
  }
  return { root, dir, packed, installed: join(dir, "node_modules", "stowage"), manifest };
}

/** The import specifiers of the package's `exports` ("stowage", "stowage/reader", …). */
export function exportSpecifiers(manifest: Scratch["manifest"]): string[] {
  return Object.keys(manifest.exports)
    .filter((k) => !k.endsWith(".json") && !k.includes("*"))
    .map((k) => (k === "." ? "stowage" : `stowage/${k.slice(2)}`));
}
