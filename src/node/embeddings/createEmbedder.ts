import type { HaikuConfig } from '../../core/config';
import type { Embedder } from '../../core/embeddings/embedder';
import { HaikuError } from '../../core/errors';
import { OpenAiCompatibleEmbedder } from './openAiCompatibleEmbedder';

/**
 * Why there is no bundled ("local") model: the only embedding model installable offline from npm here is
 * Universal Sentence Encoder lite, which scored 0.21 nDCG@10 on SciFact (full-text search alone: 0.66) and
 * dragged hybrid search down to 0.43. Shipping it would make results worse, so `local` explains instead.
 */
const LOCAL_PROVIDER_RETIRED =
  'The embeddings provider "local" was removed: the only embedding model that can be bundled offline ' +
  '(Universal Sentence Encoder lite) finds the right document far less often than full-text search ' +
  '(0.21 vs 0.66 nDCG@10 on the SciFact benchmark) and makes hybrid search worse (0.43). ' +
  'Set the provider to "none" for full-text search only, or to "openai" with a local OpenAI-compatible ' +
  'server, e.g. Ollama (`ollama pull nomic-embed-text`, base URL http://127.0.0.1:11434/v1, model nomic-embed-text).';

/**
 * The embedder the settings ask for; undefined for `none` (full-text search only).
 * `storedDimensions` is the dimension of vectors already in the index, so a model switch fails loudly.
 */
export function createEmbedder(settings: HaikuConfig['embeddings'], options: { storedDimensions?: number } = {}): Embedder | undefined {
  switch (settings.provider) {
    case 'none':
      return undefined;
    case 'openai':
      if (settings.apiKeyWithheld !== undefined) {
        throw new HaikuError('untrusted_endpoint', settings.apiKeyWithheld);
      }
      return new OpenAiCompatibleEmbedder({
        baseUrl: settings.baseUrl,
        model: settings.model,
        apiKey: settings.apiKey,
        dimensions: settings.dimensions,
        storedDimensions: options.storedDimensions,
        batchSize: settings.batchSize,
        ...instructionPrefixes(settings.model),
      });
    case 'local':
      throw new HaikuError('invalid_settings', LOCAL_PROVIDER_RETIRED, { remedy: { settings: ['embeddings.provider', 'embeddings.baseUrl', 'embeddings.model'] } });
    default:
      throw new HaikuError('invalid_settings', `Unknown embeddings provider "${String((settings as { provider: unknown }).provider)}". Use "none" or "openai".`, { remedy: { settings: ['embeddings.provider'] } });
  }
}

/**
 * Asymmetric retrieval models expect their documented prefixes on queries (and some on documents);
 * without them their retrieval quality drops. Matched on the model's base name, so `nomic-embed-text:v1.5`
 * and `nomic-ai/nomic-embed-text-v1.5` both count. Other models get no prefix.
 */
export function instructionPrefixes(model: string): { queryPrefix?: string; documentPrefix?: string } {
  const name = model.toLowerCase().split('/').pop()!.split(':')[0];
  if (name.startsWith('nomic-embed-text')) {
    return { queryPrefix: 'search_query: ', documentPrefix: 'search_document: ' };
  }
  if (/^(multilingual-)?e5-/.test(name) && !name.includes('instruct')) {
    return { queryPrefix: 'query: ', documentPrefix: 'passage: ' };
  }
  if (/^snowflake-arctic-embed(2|-.*v2)/.test(name)) {
    return { queryPrefix: 'query: ' };
  }
  // Ollama names bge-large-en-v1.5 plain `bge-large`.
  if (/^bge-(small|base|large)(-(en|zh)|$)/.test(name) || name.startsWith('mxbai-embed-large') || name.startsWith('snowflake-arctic-embed')) {
    return { queryPrefix: 'Represent this sentence for searching relevant passages: ' };
  }
  return {};
}

// Moved to core so the store can probe without importing the embeddings layer; kept importable from here.
export { embedderDimensions } from '../../core/embeddings/embedder';
