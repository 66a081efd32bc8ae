/**
 * Just enough of the protobuf wire format for the probe's messages: strings, int32 and bytes
 * fields (varint and length-delimited wire types). Unknown fields are skipped.
 */

export function encodeVarint(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** A length-delimited (wire type 2) string field; empty strings are omitted (proto3 default). */
export function stringField(fieldNumber: number, value: string): Buffer {
  if (value === '') return Buffer.alloc(0);
  const bytes = Buffer.from(value, 'utf8');
  return Buffer.concat([
    Buffer.from([...encodeVarint((fieldNumber << 3) | 2), ...encodeVarint(bytes.length)]),
    bytes,
  ]);
}

export type FieldValue = { wireType: 0; value: number } | { wireType: 2; value: Buffer };

export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
  readonly code = 'OPR_ERR_PROBE_PROTOBUF';
}

/** Every field of a message, in order, as (number, value); repeated fields appear repeatedly. */
export function decodeFields(buf: Buffer): [number, FieldValue][] {
  const fields: [number, FieldValue][] = [];
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (pos >= buf.length) throw new ProtobufDecodeError('truncated varint');
      const byte = buf[pos++]!;
      if (shift < 32) result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw new ProtobufDecodeError('varint too long');
    }
  };
  while (pos < buf.length) {
    const key = varint();
    const fieldNumber = Math.floor(key / 8);
    const wireType = key & 7;
    if (wireType === 0) fields.push([fieldNumber, { wireType: 0, value: varint() }]);
    else if (wireType === 2) {
      const len = varint();
      if (pos + len > buf.length) throw new ProtobufDecodeError('truncated length-delimited field');
      fields.push([fieldNumber, { wireType: 2, value: buf.subarray(pos, pos + len) }]);
      pos += len;
    } else if (wireType === 1) pos += 8;
    else if (wireType === 5) pos += 4;
    else throw new ProtobufDecodeError(`unsupported wire type ${wireType}`);
  }
  return fields;
}
