import type { ToolResultPart } from 'ai';
import { throwIfAborted } from '../errors';
import type { KnowledgeBase, PictureImage, SearchResult } from '../model/search';
import { sniffImage } from '../pictures/imageInfo';

/** One picture a search return shows a vision model: the label line and the image (base64). */
export interface PictureAttachment {
  documentId: string;
  selfRef: string;
  /** The search result the picture belongs to. */
  chunkId: string;
  /** "Page image i of n, retrieved from the knowledge base for search result [chunk_id] (self_ref). …" */
  label: string;
  /** Base64 of the stored bytes. */
  data: string;
  /** As sniffed from the bytes, not as stored. */
  mediaType: string;
}

/** What a search tool returns: plain text, or (vision on, pictures found) the text with its pictures. */
export type SearchToolOutput = string | { text: string; pictures: PictureAttachment[] };

/** The label line before each attached image; it says where the picture came from so the model never takes it for the user's. */
export function pictureLabel(index: number, total: number, chunkId: string, selfRef: string): string {
  return `Page image ${index} of ${total}, retrieved from the knowledge base for search result [${chunkId}] (${selfRef}). Not provided by the user.`;
}

/**
 * Which pictures a vision model has already been shown, per model response: each distinct (document, picture)
 * attaches once per response, however many sibling searches return it. Bytes are read from the store only
 * here, so with vision off none ever leave it.
 */
export class PictureAttachmentLedger {
  private readonly attachedPerStep = new Map<number, Set<string>>();

  /**
   * The pictures of `results` not yet attached in response `step`, in result order, with their bytes. Only the
   * hits' own pictures count (`ownPictureRefs`; expansion's are referenced, not attached). A picture without
   * bytes, whose read fails, or whose bytes are not a PNG/JPEG/GIF/WebP image with a size, is skipped, so labels
   * stay aligned.
   */
  async attach(step: number, results: readonly SearchResult[], knowledgeBase: KnowledgeBase, abortSignal?: AbortSignal): Promise<PictureAttachment[]> {
    const readBytes = knowledgeBase.pictureBytes?.bind(knowledgeBase);
    if (!readBytes) {
      return [];
    }
    let attached = this.attachedPerStep.get(step);
    if (!attached) {
      attached = new Set();
      this.attachedPerStep.set(step, attached);
    }
    const candidates: Array<{ documentId: string; selfRef: string; chunkId: string }> = [];
    for (const result of results) {
      for (const selfRef of result.ownPictureRefs ?? result.pictureRefs ?? []) {
        // A NUL cannot occur in a document id or a self ref, so the key is unambiguous.
        const key = `${result.documentId}\u0000${selfRef}`;
        if (!attached.has(key)) {
          attached.add(key);
          candidates.push({ documentId: result.documentId, selfRef, chunkId: result.chunkId });
        }
      }
    }
    const images = await Promise.all(candidates.map(async (candidate) => {
      throwIfAborted(abortSignal);
      let image: PictureImage | undefined;
      try {
        image = await readBytes(candidate.documentId, candidate.selfRef);
      } catch {
        // A picture that cannot be read is left out like one that cannot be decoded: the search result stands.
        image = undefined;
      }
      const info = image ? sniffImage(image.bytes) : undefined;
      return image && info && info.width > 0 && info.height > 0 ? { ...candidate, bytes: image.bytes, mediaType: info.mimeType } : undefined;
    }));
    throwIfAborted(abortSignal);
    const decodable = images.filter((image) => image !== undefined);
    return decodable.map((image, index) => ({
      documentId: image.documentId,
      selfRef: image.selfRef,
      chunkId: image.chunkId,
      label: pictureLabel(index + 1, decodable.length, image.chunkId, image.selfRef),
      data: base64(image.bytes),
      mediaType: image.mediaType,
    }));
  }
}

/** The model's view of a search tool's return: text alone, or the text then a label line and image per picture. */
export function searchToolModelOutput(output: SearchToolOutput): ToolResultPart['output'] {
  if (typeof output === 'string') {
    return { type: 'text', value: output };
  }
  if (output.pictures.length === 0) {
    return { type: 'text', value: output.text };
  }
  return {
    type: 'content',
    value: [
      { type: 'text', text: output.text },
      ...output.pictures.flatMap((picture) => [
        { type: 'text' as const, text: picture.label },
        { type: 'image-data' as const, data: picture.data, mediaType: picture.mediaType },
      ]),
    ],
  };
}

/** The text of a search tool's return (what events, logs and tests read). */
export function searchToolText(output: SearchToolOutput): string {
  return typeof output === 'string' ? output : output.text;
}

/** Standard base64 without Node's Buffer (core runs anywhere); built in slices to keep argument lists short. */
function base64(bytes: Uint8Array): string {
  const slice = 0x8000;
  let binary = '';
  for (let start = 0; start < bytes.length; start += slice) {
    binary += String.fromCharCode(...bytes.subarray(start, start + slice));
  }
  return btoa(binary);
}
