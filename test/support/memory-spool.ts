/**
 * MemorySpool: the `Spool` semantics over plain maps, shared by every instance
 * opened on the same location name. It exists to check the contract suite
 * itself (a second, obviously-correct implementation); it is not durable, and
 * only tests use it (src/spool/spool.test.ts), so it lives in test support.
 */
import { lineBytes } from "../../src/batch/hour-batcher.js";
import type {
  BatchOutcome,
  RecordOwner,
  SealResult,
  Spool,
  SpoolBatch,
  SpoolBatchInput,
  SpoolOpenOptions,
  SpoolRecord,
  SpoolRecordInput,
  SpoolStatus,
} from "../../src/spool/spool.js";

interface MemBatch extends SpoolBatch {
  leaseOwner: number | null;
  leaseUntilMs: number;
}
interface MemFile {
  nextId: number;
  nextOwner: number;
  owners: Map<number, number>; // id → expiry (heartbeat + that owner's own lease)
  records: Map<number, { owner: number | null; line: string; timestampMs: number }>;
  batches: Map<string, MemBatch>;
  usage: number;
}

const files = new Map<string, MemFile>();

/** @example const a = MemorySpool.open("x", { leaseMs: 1000 }); const b = MemorySpool.open("x", { leaseMs: 1000 }); */
export class MemorySpool implements Spool {
  readonly ownId: number;
  readonly adoptedId: number;
  private readonly f: MemFile;
  private readonly now: () => number;

  private constructor(
    location: string,
    private readonly options: SpoolOpenOptions,
  ) {
    let f = files.get(location);
    if (!f)
      files.set(
        location,
        (f = {
          nextId: 1,
          nextOwner: 1,
          owners: new Map(),
          records: new Map(),
          batches: new Map(),
          usage: 0,
        }),
      );
    this.f = f;
    this.now = options.now ?? Date.now;
    this.ownId = f.nextOwner++;
    this.adoptedId = f.nextOwner++;
    const expires = this.now() + options.leaseMs;
    f.owners.set(this.ownId, expires).set(this.adoptedId, expires);
  }

  static open(location: string, options: SpoolOpenOptions): MemorySpool {
    return new MemorySpool(location, options);
  }

  private mine(owner: number | null): boolean {
    return owner === this.ownId || owner === this.adoptedId;
  }

  append(records: readonly SpoolRecordInput[], outcomes: readonly BatchOutcome[] = []): number[] {
    const ids = records.map((r) => {
      const id = this.f.nextId++;
      this.f.records.set(id, {
        owner: this.ownId,
        line: r.line,
        timestampMs: Math.floor(r.timestampMs),
      });
      this.f.usage += lineBytes(r.line);
      return id;
    });
    this.complete(outcomes);
    return ids;
  }

  seal(
    recordIds: readonly number[],
    which: RecordOwner,
    build: (kept: number[]) => SpoolBatchInput,
  ): SealResult {
    const owner = which === "own" ? this.ownId : this.adoptedId;
    const kept = recordIds
      .map((id, i) => (this.f.records.get(id)?.owner === owner ? i : -1))
      .filter((i) => i >= 0);
    if (kept.length === 0) return { kept, inserted: false };
    const b = build(kept);
    for (const i of kept) this.f.records.delete(recordIds[i]!);
    this.f.batches.set(b.id, {
      ...b,
      state: "leased",
      createdMs: this.now(),
      leaseOwner: this.ownId,
      leaseUntilMs: this.now() + this.options.leaseMs,
    });
    this.f.usage += b.body.byteLength - b.decodedBytes;
    return { kept, inserted: true };
  }

  claim(limit: number): SpoolBatch[] {
    const now = this.now();
    const out: SpoolBatch[] = [];
    const all = [...this.f.batches.values()].sort((a, b) => a.createdMs - b.createdMs);
    for (const b of all) {
      if (out.length >= limit) break;
      if (b.state === "pending" || (b.state === "leased" && b.leaseUntilMs < now)) {
        Object.assign(b, {
          state: "leased",
          leaseOwner: this.ownId,
          leaseUntilMs: now + this.options.leaseMs,
        });
        out.push(this.view(b));
      }
    }
    return out;
  }

  private view(b: MemBatch): SpoolBatch {
    const { leaseOwner: _o, leaseUntilMs: _u, ...rest } = b;
    return { ...rest };
  }

  load(id: string): SpoolBatch | null {
    const b = this.f.batches.get(id);
    return b && b.state === "leased" && this.mine(b.leaseOwner) ? this.view(b) : null;
  }

  complete(outcomes: readonly BatchOutcome[]): void {
    for (const o of outcomes) {
      const b = this.f.batches.get(o.id);
      if (!b) continue;
      if (o.ok) {
        this.f.batches.delete(o.id);
        this.f.usage -= b.body.byteLength;
      } else if (b.state === "leased" && this.mine(b.leaseOwner)) {
        Object.assign(b, { state: "failed", leaseOwner: null, leaseUntilMs: 0 });
      }
    }
  }

  renew(): void {
    const now = this.now();
    this.f.owners
      .set(this.ownId, now + this.options.leaseMs)
      .set(this.adoptedId, now + this.options.leaseMs);
    for (const b of this.f.batches.values())
      if (b.state === "leased" && this.mine(b.leaseOwner))
        b.leaseUntilMs = now + this.options.leaseMs;
  }

  adopt(options: { sweep?: boolean } = {}): number {
    const now = this.now();
    const dead = new Set(
      [...this.f.owners].filter(([id, exp]) => exp < now && !this.mine(id)).map(([id]) => id),
    );
    for (const id of dead) this.f.owners.delete(id);
    let n = 0;
    for (const r of this.f.records.values()) {
      const orphan = r.owner === null || !this.f.owners.has(r.owner);
      if ((r.owner !== null && dead.has(r.owner)) || (options.sweep && orphan)) {
        r.owner = this.adoptedId;
        n++;
      }
    }
    return n;
  }

  readAdopted(afterId: number, limit: number): SpoolRecord[] {
    const out: SpoolRecord[] = [];
    for (const [id, r] of this.f.records) {
      if (out.length >= limit) break;
      if (id > afterId && r.owner === this.adoptedId)
        out.push({ id, line: r.line, timestampMs: r.timestampMs });
    }
    return out;
  }

  retryFailed(): number {
    let n = 0;
    for (const b of this.f.batches.values()) {
      if (b.state !== "failed") continue;
      b.state = "pending";
      n++;
    }
    return n;
  }

  bytes(): number {
    return this.f.usage;
  }

  status(): SpoolStatus {
    const s: SpoolStatus = {
      records: this.f.records.size,
      pending: 0,
      failed: 0,
      bytes: 0,
      leased: 0,
      pendingRecords: 0,
      failedRecords: 0,
    };
    for (const r of this.f.records.values()) s.bytes += lineBytes(r.line);
    for (const b of this.f.batches.values()) {
      s.bytes += b.body.byteLength;
      if (b.state === "failed") {
        s.failed++;
        s.failedRecords += b.records;
      } else {
        s.pending++;
        s.pendingRecords += b.records;
        if (b.state === "leased") s.leased++;
      }
    }
    return s;
  }

  close(): void {
    for (const b of this.f.batches.values())
      if (b.state === "leased" && this.mine(b.leaseOwner))
        Object.assign(b, { state: "pending", leaseOwner: null });
    const held = [...this.f.records.values()].some((r) => this.mine(r.owner));
    for (const id of [this.ownId, this.adoptedId]) {
      if (held) this.f.owners.set(id, 0);
      else this.f.owners.delete(id);
    }
  }
}
