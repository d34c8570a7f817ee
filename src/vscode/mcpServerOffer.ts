/**
 * When Haiku offers its MCP server (pure, no `vscode` import). VS Code asks the user to trust an extension's MCP
 * server whenever its definition changes, and the definition names each workspace's index, so a server offered
 * unasked put "Start it now?" into the first chat answer of every window. Instead the server is listed only once
 * the user enabled it, from a one-time notification after the first index that holds documents.
 */

/** globalState keys: the user's answer (`enabled`) and whether to stop asking (`declined`). */
export const MCP_OFFER_KEYS = { enabled: 'haiku.mcpServer.enabled', declined: 'haiku.mcpServer.declined' } as const;

export interface McpOfferState {
  enabled: boolean;
  declined: boolean;
  /** Already asked in this window (a "Not Now" waits for another window). */
  askedThisWindow: boolean;
}

/** True when the index just became ready with documents and the user has not answered for good. */
export function shouldOfferMcpServer(offer: McpOfferState, status: { state: string; documents: number }): boolean {
  return !offer.enabled && !offer.declined && !offer.askedThisWindow && status.state === 'ready' && status.documents > 0;
}
