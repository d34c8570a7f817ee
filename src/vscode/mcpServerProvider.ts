import * as vscode from 'vscode';
import type { HaikuConfig } from '../core/config';
import { mcpServerLaunch } from '../core/mcp/serverLaunch';
import { MCP_OFFER_KEYS, shouldOfferMcpServer } from './mcpServerOffer';

/** The provider id; package.json declares it under `contributes.mcpServerDefinitionProviders`. */
export const MCP_SERVER_PROVIDER_ID = 'haiku.mcpServers';

const SERVER_LABEL = 'Haiku';

/** What the offer needs of the index: its status changes. */
interface IndexStatusSource {
  readonly onDidChangeStatus: vscode.Event<{ state: string; documents: number }>;
}

/**
 * Offers `haiku mcp` over the workspace's index to VS Code's MCP client (Copilot agent mode and any MCP-aware
 * extension): the extension's own `dist/cli.js` on the editor's Node, read-only, started in the workspace folder.
 * The definition changes (and VS Code offers a refresh) when a `haiku.*` setting does. It is listed only once the
 * user enabled it from a one-time notification after the first index with documents (see `mcpServerOffer.ts`):
 * offered unasked, VS Code put "Start it now?" into the first chat answer of every window.
 */
export function registerHaikuMcpServer(context: vscode.ExtensionContext, getConfig: () => HaikuConfig, index: IndexStatusSource): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  // In-host test runs start with an empty global state and start the server from VS Code's list (suite 10).
  const enabled = (): boolean => context.extensionMode === vscode.ExtensionMode.Test || context.globalState.get<boolean>(MCP_OFFER_KEYS.enabled) === true;
  let askedThisWindow = false;
  const offerWhenReady = (status: { state: string; documents: number }): void => {
    if (!shouldOfferMcpServer({ enabled: enabled(), declined: context.globalState.get<boolean>(MCP_OFFER_KEYS.declined) === true, askedThisWindow }, status)) {
      return;
    }
    askedThisWindow = true;
    const enable = vscode.l10n.t('Enable MCP Server');
    const later = vscode.l10n.t('Not Now');
    const never = vscode.l10n.t("Don't Ask Again");
    // Not modal and not awaited: nothing waits on the answer, and a chat in progress is not interrupted.
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Haiku indexed your documents. It can also serve them to MCP clients (Copilot agent mode and other MCP-aware tools) as a read-only MCP server. Enable it?'),
      enable, later, never,
    ).then(async (choice) => {
      if (choice === enable) {
        await context.globalState.update(MCP_OFFER_KEYS.enabled, true);
        changed.fire();
      } else if (choice === never) {
        await context.globalState.update(MCP_OFFER_KEYS.declined, true);
      }
    });
  };
  const cliPath = vscode.Uri.joinPath(context.extensionUri, 'dist', 'cli.js').fsPath;
  const extensionVersion = String((context.extension.packageJSON as { version?: unknown }).version ?? '0');
  const definitionFor = (withSecrets: boolean): vscode.McpStdioServerDefinition => {
    const config = getConfig();
    const launch = mcpServerLaunch(config, { nodePath: process.execPath, cliPath, withSecrets });
    // The version names what the server serves, so a changed index or model shows up as changed tools.
    const definition = new vscode.McpStdioServerDefinition(SERVER_LABEL, launch.command, launch.args, launch.env, `${extensionVersion} ${launch.args.slice(2).join(' ')} ${launch.env.HAIKU_MODEL ?? ''}`);
    definition.cwd = vscode.workspace.workspaceFolders?.[0]?.uri;
    return definition;
  };
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => (enabled() ? [definitionFor(false)] : []),
    // Only now (the server is starting) does the definition carry the model's API key.
    resolveMcpServerDefinition: () => definitionFor(true),
  };
  return vscode.Disposable.from(
    changed,
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('haiku')) {
        changed.fire();
      }
    }),
    vscode.lm.registerMcpServerDefinitionProvider(MCP_SERVER_PROVIDER_ID, provider),
    index.onDidChangeStatus(offerWhenReady),
  );
}
