/**
 * PostgreSQL's CancelRequest: sent on a connection of its own, naming the backend by
 * its process id and secret key (from BackendKeyData), to stop a running COPY.
 */
import { connect } from "node:net";

/** What a CancelRequest needs of a `pg` Client. */
export interface CancelTarget {
  processID?: number | null;
  secretKey?: number | null;
  connectionParameters: { host?: string; port?: number };
}

/**
 * Asks the server to cancel the running statement (a CancelRequest on its own
 * connection). Resolves when the server has closed that connection, i.e. has signalled
 * the backend: a cancel that arrives once the statement is over is ignored by an idle
 * backend, so waiting for this keeps it from hitting the connection's next statement.
 */
export function sendCancel(client: CancelTarget): Promise<void> {
  const { processID, secretKey } = client;
  const { host = "localhost", port = 5432 } = client.connectionParameters;
  if (processID == null || secretKey == null) return Promise.resolve();
  const msg = Buffer.alloc(16);
  msg.writeInt32BE(16, 0);
  msg.writeInt32BE(80877102, 4);
  msg.writeInt32BE(processID, 8);
  msg.writeInt32BE(secretKey, 12);
  const sock = host.startsWith("/") ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
  sock.on("error", () => undefined); // best effort: the stream is discarded either way
  sock.setTimeout(5000, () => sock.destroy());
  sock.end(msg);
  return new Promise((resolve) => sock.on("close", () => resolve()));
}
