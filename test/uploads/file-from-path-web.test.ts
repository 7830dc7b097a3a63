import { describe, expect, it } from 'vitest';
// The web entry alone: its fileFromPath has no file system to open.
import { fileFromPath, SvcError } from '../../src/index.js';

describe('fileFromPath on the web build', () => {
  it('rejects with an SvcError saying it needs Node and what to pass instead', async () => {
    const call = fileFromPath('./deck.pdf', { filename: 'deck.pdf' });
    await expect(call).rejects.toBeInstanceOf(SvcError);
    await expect(call).rejects.toThrow(
      '[svc-sdk] fileFromPath needs Node: this runtime loaded the web build of svc-sdk, which has no file system. Pass a Blob, File, bytes or a ReadableStream to documents.upload instead.',
    );
  });
});
