import * as assert from 'node:assert';
import { MessageChannel } from 'node:worker_threads';
import { codeUnits, packedLength, packTexts, unpackText, type PackedText } from '../../../src/node/sandbox/packedText';

/** VFS files cross to the sandbox worker as bytes in one transferred buffer (`packedText.ts`). */
describe('packed texts', () => {
  const texts = ['', 'odd', 'Latin-1 only: é ü ÿ \u0000 \r\n', '東京 and ascii 😀 and a lone \ud800 surrogate', 'x', 'wide at the end 京', '京 wide at the start'];

  it('give back every text exactly, Latin-1 ones one byte a character and wide ones at an even offset', () => {
    const { packed, transferList } = packTexts(texts);
    assert.strictEqual(transferList.length, 1);
    for (const [index, text] of texts.entries()) {
      const item = packed[index];
      assert.strictEqual(unpackText(item), text);
      assert.strictEqual(packedLength(item), text.length);
      assert.strictEqual(item.bytes.buffer, transferList[0], 'one buffer for all');
      const wide = /[^\u0000-\u00ff]/.test(text);
      assert.strictEqual(item.bytes.length, wide ? text.length * 2 : text.length, text);
      if (wide) {
        assert.strictEqual(item.bytes.byteOffset % 2, 0, text);
      }
      assert.deepStrictEqual(Array.from(codeUnits(item)), Array.from({ length: text.length }, (_, position) => text.charCodeAt(position)));
    }
  });

  it('mark the runs of characters above U+00FF as [start, end) pairs', () => {
    const { packed } = packTexts(['ab東京c😀\u00ffd\ud800', 'plain']);
    assert.deepStrictEqual(Array.from(packed[0].wideRuns), [2, 4, 5, 7, 9, 10]);
    assert.deepStrictEqual(Array.from(packed[1].wideRuns), []);
  });

  it('arrive whole on another thread when the buffer is transferred', async () => {
    const { packed, transferList } = packTexts(texts);
    const channel = new MessageChannel();
    try {
      const received = new Promise<PackedText[]>((resolve) => channel.port2.once('message', resolve));
      channel.port1.postMessage(packed, transferList);
      assert.strictEqual(transferList[0].byteLength, 0, 'moved, not copied');
      assert.deepStrictEqual((await received).map(unpackText), texts);
    } finally {
      channel.port1.close();
    }
  });

  it('of no text at all make an empty buffer that needs no transfer', () => {
    const { packed, transferList } = packTexts(['', '']);
    assert.deepStrictEqual(transferList, []);
    assert.deepStrictEqual(packed.map(unpackText), ['', '']);
  });
});
