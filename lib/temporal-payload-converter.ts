import {
  BinaryPayloadConverter,
  CompositePayloadConverter,
  METADATA_ENCODING_KEY,
  UndefinedPayloadConverter,
  ValueError,
  encodingKeys,
  encodingTypes,
  type Payload,
  type PayloadConverterWithEncoding,
} from '@temporalio/common';
import { decode, encode } from '@temporalio/common/lib/encoding';
import { isInteger, parse, stringify } from 'lossless-json';

/**
 * JSON payloads with exact integers of any size. Workflow inputs, activity inputs and results carry amounts as BigInt;
 * the SDK's JSON converter cannot serialize them, and a float would round them. This converter keeps the standard
 * `json/plain` encoding, so payloads written by the default converter still decode and histories stay readable in the
 * Web UI. It runs inside the workflow sandbox too (hence no Node built-ins and no import of lib/json.ts).
 */
class LosslessJsonPayloadConverter implements PayloadConverterWithEncoding {
  readonly encodingType = encodingTypes.METADATA_ENCODING_JSON;

  toPayload(value: unknown): Payload | undefined {
    if (value === undefined) return undefined;
    const json = stringify(value);
    if (json === undefined) return undefined;
    return { metadata: { [METADATA_ENCODING_KEY]: encodingKeys.METADATA_ENCODING_JSON }, data: encode(json) };
  }

  fromPayload<T>(payload: Payload): T {
    if (payload.data === undefined || payload.data === null) throw new ValueError('Got payload with no data');
    return parse(decode(payload.data), undefined, parseNumber) as T;
  }
}

function parseNumber(text: string): number | bigint {
  if (!isInteger(text)) return Number(text);
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : BigInt(text);
}

export const payloadConverter = new CompositePayloadConverter(
  new UndefinedPayloadConverter(),
  new BinaryPayloadConverter(),
  new LosslessJsonPayloadConverter(),
);
