/**
 * The `Spool` contract suite (DESIGN.md "contract suites"): every implementation
 * runs it against itself. Time is injected, so lease expiry is exact and no
 * test waits on the wall clock.
 */
import { describe, expect, it } from "vitest";
import { encodeV1Object } from "../batch/encoder.js";
import type { Spool, SpoolBatchInput, SpoolOpenOptions, SpoolRecordInput } from "./spool.js";

export interface SpoolFactory {
  /** A new, empty location (a file path, a map name). */
  location(): string;
  /** Opens a spool instance (one writer) on `location`; several may share one. */
  open(location: string, options: SpoolOpenOptions): Spool;
}

const HOUR = Date.UTC(2026, 2, 1, 10);
const LEASE = 10_000;

function recs(n: number, tag: string): SpoolRecordInput[] {
  return Array.from({ length: n }, (_, i) => ({
    line: JSON.stringify({ message: `${tag}-${i}`, note: "é✓" }),
    timestampMs: HOUR + i,
  }));
}

/** Encodes the kept records the way the sink does: one gzip body, final v1 key. */
export function buildBatch(records: readonly SpoolRecordInput[], kept: number[]): SpoolBatchInput {
  const sel = kept.map((i) => records[i]!);
  const minMs = Math.min(...sel.map((r) => r.timestampMs));
  const maxMs = Math.max(...sel.map((r) => r.timestampMs));
  const enc = encodeV1Object({ lines: sel.map((r) => r.line), minMs, maxMs }, { prefix: "c" });
  return {
    id: enc.batchId,
    key: enc.key,
    body: enc.body,
    records: enc.records,
    decodedBytes: enc.decodedBytes,
    minMs,
    maxMs,
  };
}

const lineBytes = (rs: readonly SpoolRecordInput[]) =>
  rs.reduce((n, r) => n + Buffer.byteLength(r.line) + 1, 0);

export function runSpoolContract(name: string, factory: SpoolFactory): void {
  describe(`Spool contract: ${name}`, () => {
    let clock = 1_000_000;
    const opts: SpoolOpenOptions = { leaseMs: LEASE, now: () => clock };
    const open = (loc: string) => factory.open(loc, opts);
    const consistent = (s: Spool) => expect(s.bytes()).toBe(s.status().bytes);
    /** Appends and seals `n` records into one batch leased by `s`; returns its id. */
    const sealOne = (s: Spool, n: number, tag: string) => {
      const rs = recs(n, tag);
      const ids = s.append(rs);
      let id = "";
      s.seal(ids, "own", (kept) => {
        const b = buildBatch(rs, kept);
        id = b.id;
        return b;
      });
      return id;
    };

    it("§4 a fresh spool is empty", () => {
      const s = open(factory.location());
      expect(s.status()).toEqual({
        records: 0,
        pending: 0,
        failed: 0,
        bytes: 0,
        leased: 0,
        pendingRecords: 0,
        failedRecords: 0,
      });
      consistent(s);
      s.close();
    });

    it("§4 append stores records; bytes are UTF-8 line bytes plus the newline", () => {
      const s = open(factory.location());
      const rs = recs(5, "a");
      const ids = s.append(rs);
      expect(ids).toHaveLength(5);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(s.status()).toMatchObject({ records: 5, pending: 0, bytes: lineBytes(rs) });
      consistent(s);
      s.close();
    });

    it("§4 seal turns records into one leased batch row holding the compressed body", () => {
      const s = open(factory.location());
      const rs = recs(50, "s");
      const ids = s.append(rs);
      let built: SpoolBatchInput | undefined;
      const res = s.seal(ids, "own", (kept) => (built = buildBatch(rs, kept)));
      expect(res).toEqual({ kept: ids.map((_, i) => i), inserted: true });
      expect(s.status()).toMatchObject({
        records: 0,
        pending: 1,
        leased: 1,
        pendingRecords: 50,
        bytes: built!.body.byteLength,
      });
      const loaded = s.load(built!.id)!;
      expect(Buffer.from(loaded.body).equals(Buffer.from(built!.body))).toBe(true);
      expect(loaded).toMatchObject({
        key: built!.key,
        records: 50,
        decodedBytes: lineBytes(rs),
        state: "leased",
      });
      consistent(s);
      s.close();
    });

    it("§4 delivered deletes the batch; failed stays failed, is never claimed, and retryFailed re-arms it", () => {
      const loc = factory.location();
      const a = open(loc);
      const b = open(loc);
      const ok = sealOne(a, 3, "ok");
      const bad = sealOne(a, 4, "bad");
      a.complete([
        { id: ok, ok: true },
        {
          id: bad,
          ok: false,
          failure: { category: "auth", code: "AccessDenied", message: "denied" },
        },
      ]);
      expect(a.status()).toMatchObject({ pending: 0, failed: 1, failedRecords: 4 });
      clock += LEASE * 3;
      expect(b.claim(10)).toEqual([]);
      expect(a.retryFailed()).toBe(1);
      expect(a.status()).toMatchObject({ pending: 1, failed: 0 });
      expect(b.claim(10).map((x) => x.id)).toEqual([bad]);
      consistent(a);
      a.close();
      b.close();
    });

    it("§4 append applies delivery outcomes in the same transaction", () => {
      const s = open(factory.location());
      const id = sealOne(s, 2, "x");
      s.append(recs(1, "y"), [{ id, ok: true }]);
      expect(s.status()).toMatchObject({ records: 1, pending: 0 });
      consistent(s);
      s.close();
    });

    it("§4 claims are atomic between owners and skip live leases", () => {
      const loc = factory.location();
      const a = open(loc);
      const made = [sealOne(a, 1, "p"), sealOne(a, 1, "q"), sealOne(a, 1, "r")];
      const b = open(loc);
      expect(b.claim(10)).toEqual([]); // all leased by a, alive
      a.close(); // release → pending
      const first = b.claim(2).map((x) => x.id);
      const c = open(loc);
      const second = c.claim(10).map((x) => x.id);
      expect(first).toHaveLength(2);
      expect(second).toHaveLength(1);
      expect(new Set([...first, ...second])).toEqual(new Set(made));
      expect(b.claim(10)).toEqual([]);
      expect(c.load(first[0]!)).toBeNull(); // not c's lease
      b.close();
      c.close();
    });

    it("§4 an expired lease makes a batch claimable again; renew keeps it", () => {
      const loc = factory.location();
      const a = open(loc);
      const b = open(loc);
      const id = sealOne(a, 2, "l");
      clock += LEASE - 1;
      a.renew();
      clock += LEASE - 1; // past the first lease, inside the renewed one
      expect(b.claim(5)).toEqual([]);
      clock += 2;
      const got = b.claim(5);
      expect(got.map((x) => x.id)).toEqual([id]);
      expect(got[0]!.body.byteLength).toBeGreaterThan(0);
      expect(a.load(id)).toBeNull(); // a lost the lease
      a.complete([{ id, ok: false, failure: { category: "other", code: "X", message: "late" } }]);
      expect(b.status()).toMatchObject({ failed: 0, leased: 1 }); // a's late failure does not touch b's lease
      a.close();
      b.close();
    });

    it("§4 records of a dead owner are adopted once; the dead owner can no longer seal them", () => {
      const loc = factory.location();
      const a = open(loc);
      const b = open(loc);
      const rs = recs(3, "d");
      const ids = a.append(rs);
      clock += LEASE + 1;
      b.renew();
      expect(b.adopt()).toBe(3);
      expect(b.adopt()).toBe(0);
      expect(a.seal(ids, "own", (kept) => buildBatch(rs, kept))).toEqual({
        kept: [],
        inserted: false,
      });
      const adopted = b.readAdopted(0, 100);
      expect(adopted.map((r) => r.line)).toEqual(rs.map((r) => r.line));
      expect(b.readAdopted(adopted[1]!.id, 100)).toHaveLength(1);
      const res = b.seal(
        adopted.map((r) => r.id),
        "adopted",
        (kept) => buildBatch(adopted, kept),
      );
      expect(res.kept).toEqual([0, 1, 2]);
      expect(b.status()).toMatchObject({ records: 0, pending: 1, pendingRecords: 3 });
      consistent(b);
      b.close();
    });

    it("§4 a seal keeps only the records still owned when some were adopted", () => {
      const loc = factory.location();
      const a = open(loc);
      const b = open(loc);
      const early = recs(2, "e");
      const earlyIds = a.append(early);
      clock += LEASE + 1;
      b.renew();
      expect(b.adopt()).toBe(2);
      a.renew(); // a comes back (a long stall) and keeps writing
      const late = recs(1, "late");
      const lateIds = a.append(late);
      const all = [...early, ...late];
      const res = a.seal([...earlyIds, ...lateIds], "own", (kept) => buildBatch(all, kept));
      expect(res).toEqual({ kept: [2], inserted: true });
      expect(a.status()).toMatchObject({ records: 2, pending: 1, pendingRecords: 1 });
      consistent(a);
      a.close();
      b.close();
    });

    it("§4 each owner is judged dead by its own lease, not the observer's", () => {
      const loc = factory.location();
      const patient = factory.open(loc, { leaseMs: LEASE * 10, now: () => clock });
      const hasty = open(loc); // LEASE
      patient.append(recs(2, "slow"));
      clock += LEASE * 2; // past hasty's lease, well inside patient's
      hasty.renew();
      expect(hasty.adopt()).toBe(0);
      clock += LEASE * 9;
      hasty.renew();
      expect(hasty.adopt()).toBe(2);
      patient.close();
      hasty.close();
    });

    it("§4 close releases leases and hands leftover records over at once", () => {
      const loc = factory.location();
      const a = open(loc);
      const id = sealOne(a, 2, "c");
      a.append(recs(4, "left"));
      a.close();
      const peek = open(loc);
      expect(peek.status()).toMatchObject({ records: 4, pending: 1, leased: 0 });
      peek.close();
      const b = open(loc);
      expect(b.adopt()).toBe(4); // heartbeat 0: dead now, no lease wait
      expect(b.claim(5).map((x) => x.id)).toEqual([id]);
      b.close();
    });

    it("§4 a sweep adopts records of owners that are no longer registered", () => {
      const loc = factory.location();
      const a = open(loc);
      const b = open(loc);
      a.append(recs(1, "r1"));
      clock += LEASE + 1;
      b.renew();
      expect(b.adopt()).toBe(1); // a's registration is dropped
      a.append(recs(2, "r2")); // a writes on without a registration (no heartbeat yet)
      const c = open(loc);
      expect(c.adopt()).toBe(0);
      expect(c.adopt({ sweep: true })).toBe(2);
      c.close();
      b.close();
    });

    it("§4 reopening after a crash (no close) finds everything", () => {
      const loc = factory.location();
      const a = open(loc);
      sealOne(a, 3, "k");
      a.append(recs(2, "open"));
      const b = open(loc);
      expect(b.status()).toMatchObject({ records: 2, pending: 1, leased: 1 });
      expect(b.claim(5)).toEqual([]);
      clock += LEASE + 1;
      expect(b.adopt()).toBe(2);
      expect(b.claim(5)).toHaveLength(1);
      consistent(b);
      b.close();
    });
  });
}
