/** Reads every v1 object under a prefix back from a store, for assertions. */
import { gunzipSync } from "node:zlib";
import type { ObjectInfo, ObjectStore } from "../../src/store/object-store.js";

export interface ReadBackObject {
  key: string;
  info: ObjectInfo;
  /** Raw decoded body. */
  text: string;
  lines: Record<string, unknown>[];
}

export async function listAll(store: ObjectStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await store.list({ prefix, ...(token ? { continuationToken: token } : {}) });
    keys.push(...page.entries.map((e) => e.key));
    token = page.nextContinuationToken;
  } while (token);
  return keys;
}

export async function readBack(store: ObjectStore, prefix: string): Promise<ReadBackObject[]> {
  const out: ReadBackObject[] = [];
  for (const key of await listAll(store, prefix)) {
    const got = await store.get(key);
    const chunks: Buffer[] = [];
    for await (const c of got.body) chunks.push(c as Buffer);
    const text = gunzipSync(Buffer.concat(chunks)).toString("utf8");
    const lines = text
      .split("\n")
      .slice(0, -1)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    out.push({ key, info: got, text, lines });
  }
  return out;
}

/** Counts each value of `field` (inside `data`) across all records: exactly-once checks. */
export function idCounts(objects: ReadBackObject[], field = "id"): Map<unknown, number> {
  const counts = new Map<unknown, number>();
  for (const o of objects) {
    for (const r of o.lines) {
      const id = (r.data as Record<string, unknown> | undefined)?.[field];
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return counts;
}
