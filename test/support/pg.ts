/** Test access to the machine's PostgreSQL (127.0.0.1:5432, trust auth, db `test`): one-shot SQL, unique table names. */
import pg from "pg";
import { randomBytes } from "node:crypto";

export const PG_URL = process.env.STOWAGE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A table name no other test uses. */
export function pgTableName(base: string): string {
  return `${base}_${randomBytes(4).toString("hex")}`;
}

/** Runs SQL on a fresh connection and returns the rows. */
export async function pgExec<T = Record<string, unknown>>(
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Drops tables (ignoring ones that do not exist). */
export async function pgDrop(...tables: string[]): Promise<void> {
  if (tables.length) await pgExec(`DROP TABLE IF EXISTS ${tables.map((t) => `"${t}"`).join(", ")}`);
}
