// A writer process for the `stowage logs --follow` tests, on the built package (dist/).
// argv[2]: JSON {bucket, prefix, endpoint, region, tag, intervalMs}; credentials come from
// STOWAGE_TEST_KEY / STOWAGE_TEST_SECRET (never argv).
// Logs one record {data: {id: "<tag>-<n>", n}} every intervalMs and flushes after each: the
// record is in its own object. Prints `DELIVERED <id>` once flush() said it is stored (or
// `FAILED <id> <json>`). On SIGTERM it stops, closes and prints `CLOSED`, then exits by itself.
import { join } from "node:path";

const dist = join(import.meta.dirname, "..", "..", "dist", "index.js");
const { createLogger } = await import(dist);
const args = JSON.parse(process.argv[2] ?? "{}");
const log = createLogger({
  console: false,
  destination: "s3",
  s3: {
    bucket: args.bucket,
    prefix: args.prefix,
    region: args.region,
    endpoint: args.endpoint,
    forcePathStyle: true,
    credentials: {
      accessKeyId: process.env.STOWAGE_TEST_KEY ?? "",
      secretAccessKey: process.env.STOWAGE_TEST_SECRET ?? "",
    },
  },
});

let stop = false;
process.once("SIGTERM", () => (stop = true));
for (let n = 0; !stop; n++) {
  const id = `${args.tag}-${n}`;
  log.info(`follow record ${n}`, { id, n });
  const result = await log.flush();
  process.stdout.write(
    result.ok ? `DELIVERED ${id}\n` : `FAILED ${id} ${JSON.stringify(result)}\n`,
  );
  if (!stop) await new Promise((resolve) => setTimeout(resolve, args.intervalMs ?? 200));
}
await log.close();
process.stdout.write("CLOSED\n");
