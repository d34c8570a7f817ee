import * as assert from 'node:assert';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, askHaiku, waitForIndex } from '../haikuSupport';

interface FakeModelRequest {
  model: string;
  messages: Array<{ role: number; text: string }>;
  /** Image data parts inside tool results. */
  images: Array<{ mimeType: string; size: number }>;
}

/** Requests the scripted fake models received (test-fixtures/fake-lm shares the extension host's global). */
function fakeModelRequests(): FakeModelRequest[] {
  return (globalThis as { __fakeLmRequests?: FakeModelRequest[] }).__fakeLmRequests ?? [];
}

const LABEL = /Page image 1 of \d+, retrieved from the knowledge base for search result \[[^\]]+\] \(#\/pictures\/0\)\. Not provided by the user\./;

/** Pictures reach the chat's model as `LanguageModelDataPart` images when it takes images, and never otherwise. */
describe('Haiku: vision through the VS Code language model API', () => {
  let api: HaikuTestApi;

  before(async () => {
    api = await activateHaiku();
    await waitForIndex(api);
  });

  it('a text-only chat model gets no picture', async () => {
    const before = fakeModelRequests().length;
    const record = await askHaiku(api, '@haiku /ask cute duckling');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    const requests = fakeModelRequests().slice(before);
    assert.ok(requests.length >= 2, 'the model saw the search result');
    assert.deepStrictEqual(requests.flatMap((request) => request.images), []);
    assert.ok(!requests.some((request) => request.messages.some((message) => LABEL.test(message.text))), 'no label line either');
  });

  it('a chat model that takes images gets the DOCX figure as an image part of the search result, after its label', async () => {
    const before = fakeModelRequests().length;
    const record = await askHaiku(api, '@haiku /ask cute duckling', undefined, 'fake-lm-vision');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    assert.strictEqual(record.model, 'fake-lm-vision/fake-vision');
    const requests = fakeModelRequests().slice(before);
    const afterSearch = requests.find((request) => request.images.length > 0);
    assert.ok(afterSearch, `an image reached the model: ${JSON.stringify(requests.map((request) => request.images))}`);
    assert.deepStrictEqual(afterSearch.images.map((image) => image.mimeType), ['image/png']);
    assert.ok(afterSearch.images[0].size > 1_000, 'the picture\'s bytes, not a placeholder');
    assert.ok(afterSearch.messages.some((message) => LABEL.test(message.text)), 'the label line travels with the image');
  });
});
