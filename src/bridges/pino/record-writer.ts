/**
 * The part shared by the pino worker transport and the main-thread destination: maps
 * each parsed pino line (map-record.ts) and writes it through the bridges' one record
 * writer (bridges/shared/record-writer.ts), reporting every problem of a flush or close
 * — refused records, and how many of the records this bridge accepted were not
 * delivered, and why (never secrets) — to `report`.
 */
import type { FlushResult } from "../../logger/flush-result.js";
import type { Logger } from "../../logger/logger.js";
import { BridgeRecordWriter, type DeliveryOutcome } from "../shared/record-writer.js";
import type { BridgeErrorReporter } from "../shared/stderr-report.js";
import { mapPinoLine, type PinoFieldOptions } from "./map-record.js";

export { stderrReporter, type BridgeErrorReporter } from "../shared/stderr-report.js";

export class PinoRecordWriter {
  private readonly out: BridgeRecordWriter;

  /**
   * @param owned the bridge created the logger: close() closes it, and a failure says how
   * many of this bridge's records were not delivered.
   */
  constructor(
    readonly logger: Logger,
    private readonly fields: PinoFieldOptions,
    private readonly report: BridgeErrorReporter,
    owned = false,
  ) {
    this.out = new BridgeRecordWriter(logger, owned);
  }

  /** Maps one parsed pino line and writes it; never throws. */
  write(line: Record<string, unknown>): void {
    try {
      this.out.write(mapPinoLine(line, this.fields));
    } catch (err) {
      this.out.refused(err);
    }
  }

  /** Waits until every write has been accepted or refused, then flushes the logger. */
  async flush(timeoutMs: number): Promise<FlushResult> {
    return this.reported(await this.out.flush(timeoutMs));
  }

  /** Like flush, then closes the logger when the bridge owns it. */
  async close(timeoutMs: number): Promise<FlushResult> {
    return this.reported(await this.out.close(timeoutMs));
  }

  /** Why a flush or close did not deliver everything, for an error message. */
  describeFailure(result: FlushResult, what: string): string {
    return this.out.describeFailure(result, what);
  }

  private reported({ result, problems }: DeliveryOutcome): FlushResult {
    for (const problem of problems) this.report(problem);
    return result;
  }
}
