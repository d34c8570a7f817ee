import * as vscode from 'vscode';
import type { HaikuConfig } from '../core/config';
import { mcpServerLaunch } from '../core/mcp/serverLaunch';

/** The provider id; package.json declares it under `contributes.mcpServerDefinitionProviders`. */
export const MCP_SERVER_PROVIDER_ID = 'haiku.mcpServers';

const SERVER_LABEL = 'Haiku';

/**
 * Offers `haiku mcp` over the workspace's index to VS Code's MCP client (Copilot agent mode and any MCP-aware
 * extension): the extension's own `dist/cli.js` on the editor's Node, read-only, started in the workspace folder.
 * The definition changes (and VS Code offers a refresh) when a `haiku.*` setting does.
 */
export function registerHaikuMcpServer(context: vscode.ExtensionContext, getConfig: () => HaikuConfig): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
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
    provideMcpServerDefinitions: () => [definitionFor(false)],
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
  );
}
