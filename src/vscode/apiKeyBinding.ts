/**
 * An API key is stored together with the base URL it was set for, and sent only there: a workspace's settings
 * (say, of a cloned repository) that point `haiku.model.baseUrl` elsewhere must not receive the user's key.
 * Pure (no `vscode` import, unit-tested); the prompts live in `apiKeys.ts`.
 */

/** What secret storage holds for one endpoint. */
export interface StoredApiKey {
  key: string;
  /** The base URL the key was set for; undefined for a key stored before keys were bound (never sent unasked). */
  baseUrl: string | undefined;
}

/** The secret-storage text of a key bound to a base URL. */
export function serializeApiKey(key: string, baseUrl: string): string {
  return JSON.stringify({ key, baseUrl: normalizeBaseUrl(baseUrl) });
}

/** Reads a stored key; a plain string (stored before keys were bound) is a key bound to no URL. */
export function parseStoredApiKey(text: string | undefined): StoredApiKey | undefined {
  if (text === undefined || text === '') {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && typeof (value as StoredApiKey).key === 'string') {
      const baseUrl = (value as StoredApiKey).baseUrl;
      return { key: (value as StoredApiKey).key, baseUrl: typeof baseUrl === 'string' ? baseUrl : undefined };
    }
  } catch {
    // Not JSON: an unbound key.
  }
  return { key: text, baseUrl: undefined };
}

/** Compares base URLs as the requests use them: trimmed, trailing slashes dropped, scheme and host lower-case. */
export function normalizeBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  try {
    const url = new URL(trimmed);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}${url.search}`;
  } catch {
    return trimmed;
  }
}

/** The key to send to `baseUrl`, or why not: no key, or a key stored for another URL (then ask or refuse). */
export function apiKeyFor(stored: StoredApiKey | undefined, baseUrl: string): { key: string } | { mismatch: { storedFor: string | undefined } } | undefined {
  if (!stored) {
    return undefined;
  }
  if (stored.baseUrl !== undefined && stored.baseUrl === normalizeBaseUrl(baseUrl)) {
    return { key: stored.key };
  }
  return { mismatch: { storedFor: stored.baseUrl } };
}
