import { temporal } from '@temporalio/proto';

const { History } = temporal.api.history.v1;

/**
 * Histories are committed as protobufjs plain objects (int64 as strings, enums by name, bytes in base64). The SDK's
 * historyToJSON/historyFromJSON cannot be used here: @temporalio/common resolves a different protobufjs major than
 * @temporalio/proto, and its protojson rejects the proto package's types ("type must be a Type").
 */
export function historyToFile(history: temporal.api.history.v1.IHistory): string {
  const object = History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String, defaults: false });
  return JSON.stringify(object, null, 1) + '\n';
}

export function historyFromFile(text: string): temporal.api.history.v1.History {
  return History.fromObject(JSON.parse(text));
}
