/**
 * ClickHouse embedded (npm `chdb`, the engine in-process, nothing downloaded at run time)
 * against the test MinIO: `s3()` URLs and credentials for a key glob, and queries whose
 * JSONEachRow answer comes back parsed, with the bytes the engine read.
 */
import { queryAsync } from "chdb";
import { minio } from "./minio.js";

/** `'http://127.0.0.1:<port>/<bucket>/<glob>', '<key>', '<secret>'` for an s3() call. */
export function s3Args(glob: string, bucket = minio().bucket, endpoint = minio().endpoint): string {
  const m = minio();
  return `'${endpoint}/${bucket}/${glob}', '${m.accessKeyId}', '${m.secretAccessKey}'`;
}

export interface ChAnswer<T> {
  rows: T[];
  bytesRead: number;
  rowsRead: number;
}

/** Runs `sql` (off the event loop) and parses its JSONEachRow answer. */
export async function ch<T = Record<string, unknown>>(sql: string): Promise<ChAnswer<T>> {
  const res = await queryAsync(sql, { format: "JSONEachRow" });
  const text = res.text();
  const rows = text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
  return { rows, bytesRead: res.bytesRead, rowsRead: res.rowsRead };
}

/** Substitutes a documented recipe's placeholders (endpoint, bucket, prefix, credentials). */
export function fillRecipe(
  sql: string,
  values: { endpoint: string; bucket: string; prefix: string; key: string; secret: string },
): string {
  return sql
    .replaceAll(
      "https://acme-logs.s3.eu-west-1.amazonaws.com",
      `${values.endpoint}/${values.bucket}`,
    )
    .replaceAll("api/parquet/", values.prefix)
    .replaceAll("'KEY_ID'", `'${values.key}'`)
    .replaceAll("'SECRET'", `'${values.secret}'`);
}
