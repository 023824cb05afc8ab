/**
 * What the OpenTelemetry exporter did not store, counted for its lifetime: records
 * that could not be mapped (by reason, e.g. "invalid timestamp") and records the
 * logger refused (oversized, queue or spool full, closed). Like the delivery
 * latch (SPEC §3.5), a loss is never forgotten: every later forceFlush/shutdown
 * reports it, so nothing acknowledges records that were dropped (issue 30 row 8).
 */

/** The exporter's counts, as `StowageLogExporter.counts` returns them. */
export interface OtelExportCounts {
  /** Records the logger accepted (delivery is then the logger's flush/close to report). */
  exported: number;
  /** Records that could not be mapped (e.g. an invalid timestamp). */
  invalid: number;
  /** Records the logger refused. */
  refused: number;
  /** invalid + refused. */
  lost: number;
}

export class LossCounts {
  private exported = 0;
  private refused = 0;
  private lastRefusal = "";
  private readonly invalid = new Map<string, number>();

  accepted(n: number): void {
    this.exported += n;
  }

  invalidRecord(reason: string): void {
    this.invalid.set(reason, (this.invalid.get(reason) ?? 0) + 1);
  }

  refusedRecord(err: unknown): void {
    this.refused++;
    this.lastRefusal = err instanceof Error ? err.message : String(err);
  }

  snapshot(): OtelExportCounts {
    let invalid = 0;
    for (const n of this.invalid.values()) invalid += n;
    return {
      exported: this.exported,
      invalid,
      refused: this.refused,
      lost: invalid + this.refused,
    };
  }

  /** "1 invalid timestamp, 2 refused by the logger (last: …)"; "" when nothing was lost. */
  describe(): string {
    const parts = [...this.invalid].map(([reason, n]) => `${n} ${reason}`);
    if (this.refused > 0)
      parts.push(`${this.refused} refused by the logger (last: ${this.lastRefusal})`);
    return parts.join(", ");
  }
}
