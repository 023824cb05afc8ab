/** Test access to the machine's MariaDB/MySQL (127.0.0.1:3306, root, db `test`): one-shot SQL, unique table names. */
import mysql from "mysql2/promise";
import { randomBytes } from "node:crypto";

export const MYSQL_URL = process.env.STOWAGE_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

export function mysqlTableName(base: string): string {
  return `${base}_${randomBytes(4).toString("hex")}`;
}

/** Runs statements on a fresh connection (multiple statements allowed) and returns the last result. */
export async function mysqlExec(sql: string, params: unknown[] = []): Promise<unknown> {
  const conn = await mysql.createConnection({
    uri: MYSQL_URL,
    multipleStatements: true,
    timezone: "Z",
  });
  try {
    await conn.query("SET time_zone = '+00:00'");
    const [rows] = await conn.query(sql, params);
    return rows;
  } finally {
    await conn.end();
  }
}

export async function mysqlDrop(...tables: string[]): Promise<void> {
  if (tables.length)
    await mysqlExec(`DROP TABLE IF EXISTS ${tables.map((t) => `\`${t}\``).join(", ")}`);
}
