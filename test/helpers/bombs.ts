/**
 * Archives of many gigabytes of zeros that are only megabytes long, made without compressing the
 * zeros: a deflate stream is a run of independent blocks, so one compressed megabyte of zeros (its
 * own complete blocks, flushed to a byte boundary) is repeated, and an empty final block ends it.
 * The CRC is computed over the real zeros, so every archive is valid to the end.
 */
import zlib from 'node:zlib';
import { zipArchive } from './zip';

const MB = 2 ** 20;
const ZERO_MB = Buffer.alloc(MB);
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** `size` zeros as raw deflate blocks (no final block), and the CRC-32 going on from `crc` over them. */
function deflatedZeros(size: number, crc = 0): { data: Buffer; crc: number } {
  const whole = Math.floor(size / MB);
  const rest = size % MB;
  const block = zlib.deflateRawSync(ZERO_MB, { finishFlush: zlib.constants.Z_FULL_FLUSH });
  const parts: Buffer[] = new Array<Buffer>(whole).fill(block);
  if (rest) parts.push(zlib.deflateRawSync(Buffer.alloc(rest), { finishFlush: zlib.constants.Z_FULL_FLUSH }));
  for (let i = 0; i < whole; i++) crc = zlib.crc32(ZERO_MB, crc);
  if (rest) crc = zlib.crc32(Buffer.alloc(rest), crc);
  return { data: Buffer.concat(parts), crc };
}

/** A zip whose entries are `[name, size]` zeros, deflated (each entry under 4 GiB: no zip64). */
export function zipOfZeros(entries: [string, number][]): Buffer {
  return zipArchive(entries.map(([name, size]) => {
    const zeros = deflatedZeros(Math.floor(size));
    return { name, data: Buffer.concat([zeros.data, FINAL_BLOCK]), method: 8, crc: zeros.crc, size: Math.floor(size) };
  }));
}

/** A ustar header of a regular file. */
function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100);
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/**
 * A .tar.gz whose files are `[name, size]` zeros (each under 8 GiB), then its end blocks: every
 * header and zero run deflated as blocks of their own.
 */
export function tarGzOfZeros(files: [string, number][]): Buffer {
  const parts: Buffer[] = [Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])];
  let crc = 0;
  let total = 0;
  const plain = (b: Buffer) => {
    parts.push(zlib.deflateRawSync(b, { finishFlush: zlib.constants.Z_FULL_FLUSH }));
    crc = zlib.crc32(b, crc);
    total += b.length;
  };
  for (const [name, size] of files) {
    plain(tarHeader(name, size));
    const padded = Math.ceil(size / 512) * 512;
    const zeros = deflatedZeros(padded, crc);
    parts.push(zeros.data);
    crc = zeros.crc;
    total += padded;
  }
  plain(Buffer.alloc(1024));
  parts.push(FINAL_BLOCK);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(total % 2 ** 32, 4);
  parts.push(trailer);
  return Buffer.concat(parts);
}

/**
 * A zstd frame of `size` zeros, four bytes per 128 KiB: RLE blocks (each a header and the one byte
 * it repeats) after a frame header without a content size.
 */
export function zstdOfZeros(size: number): Buffer {
  const BLOCK = 128 * 1024;
  const blocks = Math.ceil(size / BLOCK);
  // why: magic, then a descriptor with no content size, checksum or dictionary, and a window of 2^(10+7) bytes, room for a whole block.
  const out = Buffer.alloc(6 + blocks * 4);
  out.writeUInt32LE(0xfd2fb528, 0);
  out[4] = 0x00;
  out[5] = 7 << 3;
  for (let i = 0; i < blocks; i++) {
    const n = Math.min(BLOCK, size - i * BLOCK);
    const header = (n << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0);
    out.writeUIntLE(header, 6 + i * 4, 3);
    out[6 + i * 4 + 3] = 0;
  }
  return out;
}
