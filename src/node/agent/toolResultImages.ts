import type { LanguageModelV3FilePart, LanguageModelV3Message, LanguageModelV3Middleware, LanguageModelV3Prompt, LanguageModelV3TextPart, LanguageModelV3ToolResultPart } from '@ai-sdk/provider';

/** Tells the model, inside the tool message, where the images of its return went. */
export function imagesFollowNotice(count: number): string {
  return `[${count} picture(s) of these results follow in the next message.]`;
}

/**
 * Chat completions take images only in user messages: a `tool` message is text, and @ai-sdk/openai's chat
 * provider serialises a tool result's image parts as JSON text (the model would read base64, not see a picture).
 * So each tool result with images keeps its text in the tool message, and its label lines and images move, in
 * order, to one user message right after the run of tool messages (tool replies must stay contiguous).
 */
export function moveToolResultImagesToUserMessages(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  const moved: LanguageModelV3Prompt = [];
  let pending: Array<LanguageModelV3TextPart | LanguageModelV3FilePart> = [];
  const flush = (): void => {
    if (pending.length > 0) {
      moved.push({ role: 'user', content: pending });
      pending = [];
    }
  };
  for (const message of prompt) {
    if (message.role !== 'tool') {
      flush();
      moved.push(message);
      continue;
    }
    moved.push({ ...message, content: message.content.map((part) => (part.type === 'tool-result' ? splitImages(part, pending) : part)) } as LanguageModelV3Message);
  }
  flush();
  return moved;
}

/** The tool result with text only; its images (each after the text part before it, its label) go to `images`. */
function splitImages(part: LanguageModelV3ToolResultPart, images: Array<LanguageModelV3TextPart | LanguageModelV3FilePart>): LanguageModelV3ToolResultPart {
  const output = part.output;
  if (output.type !== 'content' || !output.value.some(isImage)) {
    return part;
  }
  const texts: string[] = [];
  const moved: Array<LanguageModelV3TextPart | LanguageModelV3FilePart> = [];
  let imageCount = 0;
  output.value.forEach((entry, index) => {
    const next = output.value[index + 1];
    if (entry.type === 'text') {
      // A text right before an image is that image's label: it travels with it.
      if (next !== undefined && isImage(next)) {
        moved.push({ type: 'text', text: entry.text });
      } else {
        texts.push(entry.text);
      }
    } else if (isImage(entry)) {
      moved.push({ type: 'file', data: entry.data, mediaType: entry.mediaType });
      imageCount++;
    }
  });
  images.push(...moved);
  return { ...part, output: { type: 'text', value: [...texts, imagesFollowNotice(imageCount)].join('\n\n') } };
}

type ContentEntry = Extract<LanguageModelV3ToolResultPart['output'], { type: 'content' }>['value'][number];

function isImage(entry: ContentEntry): entry is Extract<ContentEntry, { type: 'image-data' | 'file-data' }> {
  return entry.type === 'image-data' || (entry.type === 'file-data' && entry.mediaType.startsWith('image/'));
}

/** Applies `moveToolResultImagesToUserMessages` to every request of a chat-completions model. */
export const toolResultImagesMiddleware: LanguageModelV3Middleware = {
  specificationVersion: 'v3',
  transformParams: async ({ params }) => ({ ...params, prompt: moveToolResultImagesToUserMessages(params.prompt) }),
};
