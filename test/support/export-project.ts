/**
 * Export tests' shared setup: a small table in each source (PostgreSQL, MariaDB,
 * SQLite), an export YAML pointing at MinIO (or a proxy in front of it), and
 * reading committed objects back.
 */
import Database from "better-sqlite3";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { resolveExportConfig, type ResolvedExportConfig } from "../../src/export/config.js";
import type { ObjectStore } from "../../src/store/object-store.js";
import { minio } from "./minio.js";
import { MYSQL_URL, mysqlDrop, mysqlExec } from "./mysql.js";
import { PG_URL, pgDrop, pgExec } from "./pg.js";

export type SourceKind = "postgres" | "mysql" | "sqlite";

/** A table `name` with `id bigint primary key, v text` holding ids 1..rows, in one source. */
export interface TestTable {
  kind: SourceKind;
  name: string;
  /** The value for `DATABASE_URL`. */
  url: string;
  /** Inserts ids from..to. */
  insert(from: number, to: number): Promise<void>;
  drop(): Promise<void>;
}

export async function createTable(kind: SourceKind, rows: number): Promise<TestTable> {
  const name = `exp_${kind}_${randomBytes(4).toString("hex")}`;
  if (kind === "postgres") {
    await pgExec(`CREATE TABLE "${name}" (id bigint PRIMARY KEY, v text)`);
    const t: TestTable = {
      kind,
      name,
      url: PG_URL,
      insert: async (a, b) =>
        void (await pgExec(
          `INSERT INTO "${name}" SELECT g, 'v' || g FROM generate_series(${a}, ${b}) g`,
        )),
      drop: () => pgDrop(name),
    };
    await t.insert(1, rows);
    return t;
  }
  if (kind === "mysql") {
    await mysqlExec(`CREATE TABLE \`${name}\` (id bigint PRIMARY KEY, v text)`);
    const t: TestTable = {
      kind,
      name,
      url: MYSQL_URL,
      insert: async (a, b) =>
        void (await mysqlExec(
          `INSERT INTO \`${name}\` SELECT seq, CONCAT('v', seq) FROM seq_${a}_to_${b}`,
        )),
      drop: () => mysqlDrop(name),
    };
    await t.insert(1, rows);
    return t;
  }
  const file = join(mkdtempSync(join(tmpdir(), "stowage-sqlite-")), "db.sqlite");
  const db = new Database(file);
  db.exec(`CREATE TABLE "${name}" (id INTEGER PRIMARY KEY, v TEXT)`);
  db.close();
  const t: TestTable = {
    kind,
    name,
    url: file,
    insert: async (a, b) => {
      const d = new Database(file);
      const ins = d.prepare(`INSERT INTO "${name}" VALUES (?, ?)`);
      d.transaction(() => {
        for (let i = a; i <= b; i++) ins.run(i, `v${i}`);
      })();
      d.close();
    },
    drop: async () => {},
  };
  await t.insert(1, rows);
  return t;
}

/** Writes an export YAML (one export named `orders`, of the table unless `body` has a query) and returns its path. */
export function exportYaml(
  dir: string,
  t: Pick<TestTable, "kind" | "name">,
  body: string,
  prefix: string,
  tuning = "",
): string {
  const file = join(dir, `export-${randomBytes(3).toString("hex")}.yaml`);
  writeFileSync(
    file,
    `source:
  type: ${t.kind}
  url_env: DATABASE_URL
exports:
  - name: orders
${/^query:/m.test(body) ? "" : `    table: ${t.name}\n`}${body.replace(/^/gm, "    ").trimEnd()}
    destination:
      type: s3
      bucket: ${minio().bucket}
      prefix: ${prefix}/
      endpoint: \${S3_ENDPOINT}
      region: us-east-1
      force_path_style: true
      access_key_env: AK
      secret_key_env: SK
tuning:
${/max_attempts/.test(tuning) ? "" : "  max_attempts: 4\n"}${tuning.replace(/^/gm, "  ").trimEnd()}
`,
  );
  return file;
}

/** The environment the configs of `minioExportConfig` name their credentials from. */
export const minioEnv = () => ({
  MINIO_KEY: minio().accessKeyId,
  MINIO_SECRET: minio().secretAccessKey,
});

/**
 * A resolved export config (in-process runs): `source`, one export `exp` writing to
 * MinIO under `prefix` with its root credentials, and `tuning`.
 */
export function minioExportConfig(
  source: Record<string, unknown>,
  exp: Record<string, unknown>,
  prefix: string,
  tuning: Record<string, unknown> = {},
  endpoint = minio().endpoint,
): ResolvedExportConfig {
  const m = minio();
  return resolveExportConfig(
    {
      source,
      exports: [
        {
          ...exp,
          destination: {
            type: "s3",
            bucket: m.bucket,
            prefix,
            endpoint,
            region: m.region,
            force_path_style: true,
            access_key_env: "MINIO_KEY",
            secret_key_env: "MINIO_SECRET",
          },
        },
      ],
      tuning,
    },
    { env: minioEnv(), file: "test.yaml" },
  );
}

/** Environment for the CLI child: MinIO root credentials (or `creds`), the endpoint and the source URL. */
export function exportEnv(
  endpoint: string,
  url?: string,
  creds?: { AK: string; SK: string; ST?: string },
): Record<string, string> {
  const m = minio();
  return {
    S3_ENDPOINT: endpoint,
    AK: creds?.AK ?? m.accessKeyId,
    SK: creds?.SK ?? m.secretAccessKey,
    ...(creds?.ST ? { ST: creds.ST } : {}),
    ...(url !== undefined ? { DATABASE_URL: url } : {}),
  };
}

export async function readAll(store: ObjectStore, key: string): Promise<Buffer> {
  const res = await store.get(key);
  const chunks: Buffer[] = [];
  for await (const c of res.body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function listAll(store: ObjectStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await store.list({ prefix, ...(token ? { continuationToken: token } : {}) });
    keys.push(...page.entries.map((e) => e.key));
    token = page.nextContinuationToken;
  } while (token);
  return keys.sort();
}

export const tmp = (name: string) => mkdtempSync(join(tmpdir(), `stowage-${name}-`));
