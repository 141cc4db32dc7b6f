/**
 * Writing a zip by hand, for tests and benchmarks that need bytes no zip tool gives: entries whose
 * data is given already compressed (a bomb of deflated zeros) or stored as it is. Each entry is a
 * plain Unix file (mode 0644), its name in UTF-8; no directory entries, no zip64 (entries under
 * 4 GiB).
 */

/** One entry: its name, the bytes as stored in the zip, how (0 stored, 8 deflated), its CRC-32 and its unpacked size. */
export interface RawZipEntry { name: string; data: Buffer; method: 0 | 8; crc: number; size: number }

/** The zip of `entries`, dated `mtime`'s day (UTC). */
export function zipArchive(entries: RawZipEntry[], mtime = new Date(Date.UTC(2024, 0, 1))): Buffer {
  const dosDate = ((mtime.getUTCFullYear() - 1980) << 9) | ((mtime.getUTCMonth() + 1) << 5) | mtime.getUTCDate();
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const n = Buffer.from(e.name, 'utf8');
    const version = e.method === 0 ? 10 : 20;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(version, 4);
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(e.method, 8);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(n.length, 26);
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE((3 << 8) | 30, 4); // made by Unix, 3.0
    head.writeUInt16LE(version, 6);
    head.writeUInt16LE(0x0800, 8);
    head.writeUInt16LE(e.method, 10);
    head.writeUInt16LE(dosDate, 14);
    head.writeUInt32LE(e.crc >>> 0, 16);
    head.writeUInt32LE(e.data.length, 20);
    head.writeUInt32LE(e.size, 24);
    head.writeUInt16LE(n.length, 28);
    head.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    head.writeUInt32LE(offset, 42);
    parts.push(local, n, e.data);
    central.push(head, n);
    offset += local.length + n.length + e.data.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, dir, end]);
}
