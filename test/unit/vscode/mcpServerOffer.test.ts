import * as assert from 'node:assert/strict';
import { shouldOfferMcpServer } from '../../../src/vscode/mcpServerOffer';

describe('MCP server offer (not a "Start it now?" inside the first chat answer)', () => {
  const fresh = { enabled: false, declined: false, askedThisWindow: false };

  it('is offered once the index is ready with documents, not while it starts, indexes or is empty', () => {
    assert.equal(shouldOfferMcpServer(fresh, { state: 'ready', documents: 3 }), true);
    assert.equal(shouldOfferMcpServer(fresh, { state: 'ready', documents: 0 }), false);
    assert.equal(shouldOfferMcpServer(fresh, { state: 'indexing', documents: 3 }), false);
    assert.equal(shouldOfferMcpServer(fresh, { state: 'starting', documents: 0 }), false);
  });

  it('is not offered again once enabled, declined for good, or already asked in this window', () => {
    const ready = { state: 'ready', documents: 3 };
    assert.equal(shouldOfferMcpServer({ ...fresh, enabled: true }, ready), false);
    assert.equal(shouldOfferMcpServer({ ...fresh, declined: true }, ready), false);
    assert.equal(shouldOfferMcpServer({ ...fresh, askedThisWindow: true }, ready), false);
  });
});
