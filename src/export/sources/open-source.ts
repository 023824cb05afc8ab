/** Opens the Source for a configured database type; drivers load lazily so `stowage --help` stays fast. */
import { StowageError } from "../../shared/errors.js";
import type { Source, SourceOptions } from "./source.js";

/**
 * @example const src = await openSource({ type: "mysql", url: "mysql://root@127.0.0.1/test" });
 */
export async function openSource(options: SourceOptions): Promise<Source> {
  switch (options.type) {
    case "postgres":
      return (await import("./postgres.js")).openPostgres(options.url, options.connectTimeoutMs);
    case "mysql":
      return (await import("./mysql.js")).openMysql(options.url, options.connectTimeoutMs);
    case "sqlite":
      return (await import("./sqlite.js")).openSqlite(options.url);
    default:
      throw new StowageError(
        "config",
        `unknown source type "${String(options.type)}"; use postgres, mysql or sqlite`,
      );
  }
}
