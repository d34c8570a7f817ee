import { generateText } from 'ai';
import { errorMessage, HaikuError, throwIfAborted } from '../../core/errors';
import { PICTURE_DESCRIPTION_CONCURRENCY, PICTURE_DESCRIPTION_MAX_TOKENS, PICTURE_DESCRIPTION_TIMEOUT_MS } from '../../core/limits';
import type { PictureData } from '../../core/model/document';
import { createOpenAiCompatibleModel } from '../agent/openAiCompatibleModel';
import type { PreparedDocument } from '../convert/conversionProtocol';
import { loadInProcessConverters } from '../convert/loadInProcessConverters';

/** The vision endpoint of `processing.pictures: description` (config `processing.pictureDescription`). */
export interface PictureDescriptionSettings {
  /** OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** A model that takes images. */
  model: string;
  apiKey?: string;
  /** Set when the configuration withheld the key from this base URL: creating the describer throws it. */
  apiKeyWithheld?: string;
  /** Overrides `PICTURE_DESCRIPTION_TIMEOUT_MS` (tests). */
  timeoutMs?: number;
}

/** The reference's picture-description prompt: a description for someone who cannot see the picture. */
const DESCRIPTION_PROMPT = 'Describe this image for a blind user who is reading the surrounding document: what it shows, any text, labels, numbers and axes in it, and what it is meant to convey. Be factual and concise; answer with the description only.';

/** Describes pictures one request each, at most `PICTURE_DESCRIPTION_CONCURRENCY` at once across the run. */
export class PictureDescriber {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly model;

  constructor(private readonly settings: PictureDescriptionSettings) {
    if (settings.model.trim() === '') {
      throw new HaikuError('invalid_settings', 'Picture descriptions need a vision model: set processing.pictureDescription.model (haiku.processing.pictureDescription.model, or --picture-model), or use pictures "image".');
    }
    // No SDK retries: a failed picture keeps its caption, and the 90 s budget is for one attempt.
    const requestTimeoutMs = settings.timeoutMs ?? PICTURE_DESCRIPTION_TIMEOUT_MS;
    const { baseUrl, model: name, apiKey, apiKeyWithheld } = settings;
    this.model = createOpenAiCompatibleModel({ baseUrl, name, apiKey, apiKeyWithheld, temperature: 0, requestTimeoutMs }).model;
  }

  async describe(picture: Required<Pick<PictureData, 'bytes' | 'mimeType'>>, abortSignal?: AbortSignal): Promise<string> {
    await this.acquire(abortSignal);
    try {
      const timeout = AbortSignal.timeout(this.settings.timeoutMs ?? PICTURE_DESCRIPTION_TIMEOUT_MS);
      const result = await generateText({
        model: this.model,
        maxRetries: 0,
        maxOutputTokens: PICTURE_DESCRIPTION_MAX_TOKENS,
        abortSignal: abortSignal ? AbortSignal.any([abortSignal, timeout]) : timeout,
        messages: [{ role: 'user', content: [{ type: 'text', text: DESCRIPTION_PROMPT }, { type: 'image', image: picture.bytes, mediaType: picture.mimeType }] }],
      });
      return result.text.trim();
    } finally {
      this.release();
    }
  }

  private async acquire(abortSignal: AbortSignal | undefined): Promise<void> {
    while (this.active >= PICTURE_DESCRIPTION_CONCURRENCY) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      throwIfAborted(abortSignal, 'Describing pictures');
    }
    this.active++;
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

/**
 * The indexer's description step (`processing.pictures: description`): each distinct picture with bytes is described
 * once, the description becomes the searchable text of every item showing it (after its alt text), and the document
 * is chunked again so the text is searchable. A picture whose request fails or times out keeps its alt text and
 * caption; the document gets one warning. Cancellation stops the step.
 */
export async function describePictures(prepared: PreparedDocument, describer: PictureDescriber, abortSignal?: AbortSignal): Promise<PreparedDocument> {
  const { document } = prepared;
  const pictures = document.items.filter((item) => item.label === 'picture' && item.picture);
  if (pictures.length === 0) {
    return prepared;
  }
  const descriptions = new Map<string, Promise<string | undefined>>();
  const failures: string[] = [];
  for (const item of pictures) {
    const picture = item.picture!;
    if (picture.bytes && !descriptions.has(picture.digest)) {
      const bytes = picture.bytes;
      descriptions.set(picture.digest, describer.describe({ bytes, mimeType: picture.mimeType }, abortSignal).then(
        (text) => text || undefined,
        (error: unknown) => {
          throwIfAborted(abortSignal, 'Describing pictures');
          failures.push(errorMessage(error));
          return undefined;
        },
      ));
    }
  }
  // All at once, so a rejection (cancellation) is handled whichever request fails first.
  const texts = await Promise.all(descriptions.values());
  const settled = new Map([...descriptions.keys()].map((digest, index) => [digest, texts[index]]));
  throwIfAborted(abortSignal, 'Describing pictures');
  const items = document.items.map((item) => {
    const description = item.label === 'picture' && item.picture ? settled.get(item.picture.digest) : undefined;
    return description ? { ...item, text: item.text.trim() ? `${item.text.trim()}\n${description}` : description } : item;
  });
  const warnings = [...document.warnings];
  if (failures.length > 0) {
    warnings.push(`${failures.length} picture${failures.length === 1 ? ' was' : 's were'} not described (${failures[0]}); ${failures.length === 1 ? 'it keeps its' : 'they keep their'} alt text and caption. Check processing.pictureDescription and re-index the file.`);
  }
  // The worker already warned if the document reached the chunk limit. Loaded here, not imported: the chunker
  // loads the o200k tokenizer, which the indexing process needs for nothing else.
  const { chunkDocumentWithinLimit } = loadInProcessConverters();
  const { chunks } = chunkDocumentWithinLimit({ id: document.id, items });
  return { document: { ...document, items, warnings }, chunks };
}
