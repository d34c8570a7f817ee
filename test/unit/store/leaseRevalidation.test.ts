import * as assert from 'node:assert/strict';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder } from '../../support/indexFixtures';
import { markdownWrite } from '../../support/documentWrites';

/** Counts the store's `checkoutLatest` calls: each full revalidation under a fresh lease makes one. */
function countCheckouts(store: LanceStore): { count: number } {
  const tables = (store as unknown as { tables: { checkoutLatest(): Promise<boolean> } }).tables;
  const checkoutLatest = tables.checkoutLatest.bind(tables);
  const counter = { count: 0 };
  tables.checkoutLatest = () => {
    counter.count++;
    return checkoutLatest();
  };
  return counter;
}

function note(name: string): Promise<Parameters<LanceStore['writeDocuments']>[0][number]> {
  return markdownWrite(`${name}.md`, `# ${name}\n\nA note called ${name}.\n`);
}

describe('Revalidation under a fresh writer lease (local index)', function () {
  this.timeout(120_000);
  let folder: ReturnType<typeof temporaryFolder>;
  const stores: LanceStore[] = [];

  beforeEach(() => {
    folder = temporaryFolder('haiku-lease-revalidation-');
  });

  afterEach(async () => {
    for (const store of stores.splice(0)) {
      await store.close();
    }
    folder.cleanup();
  });

  async function open(): Promise<LanceStore> {
    const store = await openStore({ uri: `${folder.path}/db` });
    stores.push(store);
    return store;
  }

  it("is skipped when nobody committed since the store let the lease go, and sees another writer's commits otherwise", async () => {
    const first = await open();
    await first.writeDocuments([await note('one')]);
    const checkouts = countCheckouts(first);
    await first.writeDocuments([await note('two')]);
    assert.equal(checkouts.count, 0, 'nothing changed on disk since its own last write');

    const second = await open();
    await second.writeDocuments([await note('three')]);
    await first.writeDocuments([await note('four')]);
    assert.equal(checkouts.count, 1, "the other writer's commit was seen");
    const names = (await first.listDocuments()).map((document) => document.relativePath).sort();
    assert.deepEqual(names, ['four.md', 'one.md', 'three.md', 'two.md']);
  });

  it('is not skipped after a step under the lease failed', async () => {
    const store = await open();
    await store.writeDocuments([await note('one')]);
    store.testHooks.beforeDocumentSwitch = () => {
      throw new Error('killed before the switch');
    };
    await assert.rejects(store.writeDocuments([await note('two')]), /killed before the switch/);
    store.testHooks.beforeDocumentSwitch = undefined;
    const checkouts = countCheckouts(store);
    await store.writeDocuments([await note('three')]);
    assert.equal(checkouts.count, 1);
    assert.deepEqual((await store.listDocuments()).map((document) => document.relativePath).sort(), ['one.md', 'three.md']);
  });
});
