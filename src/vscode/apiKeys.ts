import * as vscode from 'vscode';
import type { HaikuConfig } from '../core/config';
import { apiKeyFor, normalizeBaseUrl, parseStoredApiKey, serializeApiKey, type StoredApiKey } from './apiKeyBinding';
import { SECRET_KEYS, type ApiKeys } from './settingsMapping';

export type ApiKeyEndpoint = keyof typeof SECRET_KEYS;

const ENDPOINT_NAMES: Record<ApiKeyEndpoint, string> = {
  model: 'chat model',
  embeddings: 'embeddings',
  reranker: 'reranker',
  storageAccessKeyId: 'object storage access key id',
  storageSecretAccessKey: 'object storage secret access key',
};

/** The object storage server keys are bound to: the configured endpoint, else AWS S3 itself. */
export function storageKeyEndpoint(config: HaikuConfig): string {
  return config.index.storage.endpoint || 'https://s3.amazonaws.com';
}

/** The URL each secret is bound to, from the configuration. */
export function secretBaseUrls(config: HaikuConfig): Record<ApiKeyEndpoint, string> {
  const storage = storageKeyEndpoint(config);
  return { model: config.qa.model.baseUrl, embeddings: config.embeddings.baseUrl, reranker: config.reranker.baseUrl, storageAccessKeyId: storage, storageSecretAccessKey: storage };
}

/**
 * The API keys in secret storage, each bound to the base URL it was set for. A key is handed out only for that
 * URL; when the settings point elsewhere the user is asked once per URL whether to send it there.
 */
export class ApiKeyStore {
  private readonly stored: Partial<Record<ApiKeyEndpoint, StoredApiKey>> = {};
  /** Endpoint + URL pairs already asked about (or refused) in this window. */
  private readonly asked = new Set<string>();

  constructor(private readonly secrets: vscode.SecretStorage, private readonly output: vscode.LogOutputChannel) {}

  async load(): Promise<void> {
    for (const endpoint of Object.keys(SECRET_KEYS) as ApiKeyEndpoint[]) {
      this.stored[endpoint] = parseStoredApiKey(await this.secrets.get(SECRET_KEYS[endpoint]));
    }
  }

  /** Stores `key` for the endpoint's current base URL (an empty key removes it). */
  async set(endpoint: ApiKeyEndpoint, key: string, baseUrl: string): Promise<void> {
    if (key === '') {
      await this.secrets.delete(SECRET_KEYS[endpoint]);
    } else {
      await this.secrets.store(SECRET_KEYS[endpoint], serializeApiKey(key, baseUrl));
    }
    await this.load();
  }

  /** The keys that may be sent to these base URLs; for a key stored for another URL, asks once (without waiting). */
  keysFor(baseUrls: Record<ApiKeyEndpoint, string>): ApiKeys {
    const keys: ApiKeys = {};
    for (const endpoint of Object.keys(SECRET_KEYS) as ApiKeyEndpoint[]) {
      const decision = apiKeyFor(this.stored[endpoint], baseUrls[endpoint]);
      if (decision && 'key' in decision) {
        keys[endpoint] = decision.key;
      } else if (decision && baseUrls[endpoint].trim() !== '') {
        this.askOnce(endpoint, baseUrls[endpoint], decision.mismatch.storedFor);
      }
    }
    return keys;
  }

  private askOnce(endpoint: ApiKeyEndpoint, baseUrl: string, storedFor: string | undefined): void {
    const url = normalizeBaseUrl(baseUrl);
    const pair = `${endpoint}\n${url}`;
    if (this.asked.has(pair)) {
      return;
    }
    this.asked.add(pair);
    const name = ENDPOINT_NAMES[endpoint];
    const message = storedFor
      ? vscode.l10n.t('Haiku did not send your {0} API key to {1}: the key was stored for {2}. Send it to {1} from now on only if you trust that endpoint (a workspace\'s settings can change the URL).', name, url, storedFor)
      : vscode.l10n.t('Haiku did not send your {0} API key to {1}: the key was stored before keys were bound to an endpoint. Send it to {1} from now on only if you trust that endpoint.', name, url);
    this.output.warn(message);
    const send = vscode.l10n.t('Send the key to {0}', url);
    void vscode.window.showWarningMessage(message, send, vscode.l10n.t('Keep it private')).then(async (choice) => {
      const key = this.stored[endpoint]?.key;
      if (choice === send && key !== undefined) {
        await this.set(endpoint, key, url);
        this.output.info(`The ${name} API key is now bound to ${url}.`);
      }
    });
  }
}
