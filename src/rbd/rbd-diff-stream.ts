import { BACKLOG_LIMIT, inProcessHash, type HashSink } from './hash-sink.js';

// The rbd diff stream (`rbd export-diff`, format v1, Ceph doc/dev/rbd-diff.rst), read as it passes through ferry on
// its way to `rbd import-diff`: the image's bytes are hashed in offset order, the gaps filled with zeros, so the
// direct transfer proves the copy without reading it back. Bytes in, a summary out; the hash itself is a HashSink
// (hash-sink.ts: a worker thread in the transfer, in-process in tests).
//
//   "rbd diff v1\n"
//   'f' le32 len, name (from snap) | 't' le32 len, name (to snap) | 's' le64 size      metadata, before the data
//   'w' le64 offset, le64 length, data | 'z' le64 offset, le64 length                    data records
//   'e'                                                                                  end

export const RBD_DIFF_V1_HEADER = 'rbd diff v1\n';

/** What the stream said, once its end record was read. */
export interface RbdDiffSummary {
  /** The image size (`s` record). */
  readonly size: number;
  readonly toSnapshot: string | undefined;
  readonly fromSnapshot: string | undefined;
  /** Hash of the image's bytes [0, size) with zero fill; undefined when the extents were not in increasing order. */
  readonly digest: string | undefined;
  /** Data records' extents came in increasing, non-overlapping order (export-diff from no snapshot does). */
  readonly ordered: boolean;
  /** Indexes (offset ÷ object size) of the objects `w`/`z` records touched, and of those `w` gave a non-zero byte. */
  readonly writtenObjects: ReadonlySet<number>;
  readonly dataObjects: ReadonlySet<number>;
  /** Bytes of the stream itself. */
  readonly streamBytes: number;
}

/** The stream is not what export-diff writes: cut, unknown record, data past the size. */
export class RbdDiffFormatError extends Error {
  constructor(message: string, readonly at: number) {
    super(`rbd diff stream at byte ${at}: ${message}`);
    this.name = 'RbdDiffFormatError';
  }
}

const ZEROS = Buffer.alloc(1024 * 1024);
const FIXED_LENGTH: Readonly<Record<string, number>> = { s: 8, w: 16, z: 16 };

/** Push chunks in stream order, then finish(). Throws RbdDiffFormatError at the first byte that cannot be right. */
export class RbdDiffHasher {
  readonly hash: HashSink;
  private pending = Buffer.alloc(0);
  private at = 0;
  private phase: 'header' | 'tag' | 'data' | 'ended' = 'header';
  private dataLeft = 0;
  private dataOffset = 0;
  private hashedTo = 0;
  private size: number | undefined;
  private toSnapshot: string | undefined;
  private fromSnapshot: string | undefined;
  private ordered = true;
  private readonly writtenObjects = new Set<number>();
  private readonly dataObjects = new Set<number>();

  /** `hash`: an algorithm name (hashed in this thread) or a sink. */
  constructor(hash: string | HashSink, private readonly objectSize: number) {
    if (!Number.isSafeInteger(objectSize) || objectSize <= 0) throw new RangeError(`object size must be a positive integer, got ${objectSize}`);
    this.hash = typeof hash === 'string' ? inProcessHash(hash) : hash;
  }

  push(chunk: Buffer): void {
    let input = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = Buffer.alloc(0);
    while (input.length > 0) {
      const used = this.step(input);
      if (used === 0) {
        this.pending = Buffer.from(input); // a record's fixed part split across chunks: wait for more
        return;
      }
      this.at += used;
      input = input.subarray(used);
    }
  }

  /** The hash is more than BACKLOG_LIMIT copied bytes behind the stream (rbd-streams.ts pauses export-diff). */
  behind(): boolean {
    return this.hash.backlogBytes() > BACKLOG_LIMIT;
  }

  onDrain(listener: () => void): void {
    this.hash.onDrain(listener);
  }

  async finish(): Promise<RbdDiffSummary> {
    if (this.phase !== 'ended') {
      throw new RbdDiffFormatError(this.phase === 'header' && this.at === 0 && this.pending.length === 0 ? 'empty stream'
        : 'the stream ended before its end record (e): cut short', this.at + this.pending.length);
    }
    const size = this.size ?? 0;
    if (this.ordered) this.zeroFill(size);
    return {
      size, toSnapshot: this.toSnapshot, fromSnapshot: this.fromSnapshot, digest: this.ordered ? await this.hash.digest() : undefined,
      ordered: this.ordered, writtenObjects: this.writtenObjects, dataObjects: this.dataObjects, streamBytes: this.at,
    };
  }

  /** Consumes a prefix of input; 0 when input is too short for the next fixed-length part. */
  private step(input: Buffer): number {
    switch (this.phase) {
      case 'header': {
        const want = Buffer.from(RBD_DIFF_V1_HEADER, 'latin1');
        if (input.length < want.length) return 0;
        if (!input.subarray(0, want.length).equals(want)) {
          const shown = JSON.stringify(input.subarray(0, want.length).toString('latin1'));
          throw new RbdDiffFormatError(`header is ${shown}, expected "rbd diff v1\\n" (export-diff's format v1)`, this.at);
        }
        this.phase = 'tag';
        return want.length;
      }
      case 'data':
        return this.data(input);
      case 'ended':
        throw new RbdDiffFormatError(`${input.length} bytes after the end record`, this.at);
      case 'tag':
        return this.record(input);
    }
  }

  private record(input: Buffer): number {
    const tag = String.fromCharCode(input[0] ?? 0);
    if (tag === 'e') {
      this.phase = 'ended';
      return 1;
    }
    if (tag === 'f' || tag === 't') {
      if (input.length < 5) return 0;
      const length = input.readUInt32LE(1);
      if (input.length < 5 + length) return 0;
      const name = input.subarray(5, 5 + length).toString('utf8');
      if (tag === 'f') this.fromSnapshot = name;
      else this.toSnapshot = name;
      return 5 + length;
    }
    const fixed = FIXED_LENGTH[tag];
    if (fixed === undefined) throw new RbdDiffFormatError(`unknown record tag 0x${(input[0] ?? 0).toString(16).padStart(2, '0')}`, this.at);
    if (input.length < 1 + fixed) return 0;
    const first = readU64(input, 1, this.at);
    if (tag === 's') {
      if (this.writtenObjects.size > 0 || this.hashedTo > 0) throw new RbdDiffFormatError('size record after data records', this.at);
      this.size = first;
      return 9;
    }
    const length = readU64(input, 9, this.at);
    this.extent(tag, first, length);
    if (tag === 'w' && length > 0) {
      this.phase = 'data';
      this.dataLeft = length;
      this.dataOffset = first;
    }
    return 17;
  }

  private extent(tag: string, offset: number, length: number): void {
    if (this.size === undefined) throw new RbdDiffFormatError(`${tag} record before the size record`, this.at);
    if (offset + length > this.size) {
      throw new RbdDiffFormatError(`${tag} record [${offset}, ${offset + length}) past the image size ${this.size}`, this.at);
    }
    if (offset < this.hashedTo) this.ordered = false; // overlapping or backwards: the hash cannot be taken in one pass
    if (this.ordered) this.zeroFill(offset);
    for (let index = this.objectOf(offset); length > 0 && index <= this.objectOf(offset + length - 1); index += 1) this.writtenObjects.add(index);
  }

  private data(input: Buffer): number {
    const take = Math.min(input.length, this.dataLeft);
    const bytes = input.subarray(0, take);
    if (this.ordered) this.hash.update(bytes);
    this.markNonZero(this.dataOffset, bytes);
    this.dataOffset += take;
    this.dataLeft -= take;
    if (this.ordered) this.hashedTo = this.dataOffset;
    if (this.dataLeft === 0) this.phase = 'tag';
    return take;
  }

  /** Which objects hold a non-zero byte of this piece (split at object boundaries; compared with zeros, cheap). */
  private markNonZero(offset: number, bytes: Buffer): void {
    let start = 0;
    while (start < bytes.length) {
      const index = this.objectOf(offset + start);
      const end = Math.min(bytes.length, (index + 1) * this.objectSize - offset);
      if (!this.dataObjects.has(index) && !isZero(bytes.subarray(start, end))) this.dataObjects.add(index);
      start = end;
    }
  }

  private zeroFill(to: number): void {
    if (to <= this.hashedTo) return;
    this.hash.zeros(to - this.hashedTo);
    this.hashedTo = to;
  }

  private objectOf(offset: number): number {
    return Math.floor(offset / this.objectSize);
  }
}

function isZero(bytes: Buffer): boolean {
  for (let start = 0; start < bytes.length; start += ZEROS.length) {
    const piece = bytes.subarray(start, Math.min(bytes.length, start + ZEROS.length));
    if (!piece.equals(ZEROS.subarray(0, piece.length))) return false;
  }
  return true;
}

function readU64(input: Buffer, offset: number, at: number): number {
  const value = input.readBigUInt64LE(offset);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RbdDiffFormatError(`value ${value} at byte ${at + offset} is out of range`, at);
  return Number(value);
}
