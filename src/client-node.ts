import { Client as BaseClient } from './client.js';
import { encodeMultipartNode } from './uploads/encode-node.js';
import type { MultipartEncoder } from './uploads/types.js';

/**
 * The client on Node: the same API as everywhere, with uploads that also stream Node Readables
 * (with a Content-Length for fs streams) and files opened by `fileFromPath`, without buffering them.
 *
 * @example
 * ```ts
 * import { Client, fileFromPath } from 'svc-sdk';
 * const client = new Client();
 * await client.documents.upload(roomId, await fileFromPath('./deck.pdf'));
 * ```
 */
export class Client extends BaseClient {
  /** @internal */
  protected static override multipartEncoder: MultipartEncoder = encodeMultipartNode;
}
