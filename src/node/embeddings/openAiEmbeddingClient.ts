import { createOpenAI } from '@ai-sdk/openai';
import { APICallError } from '@ai-sdk/provider';
import { embedMany } from 'ai';

/**
 * The AI SDK's part of `OpenAiCompatibleEmbedder`, its own module so the embedder loads it on its first request:
 * imported up front, the SDK (and the zod it brings) was initialised by every `haiku` command, a full-text search
 * included. Holds nothing of ours, only the SDK's functions.
 */
export const openAiEmbeddingClient = {
  createOpenAI,
  embedMany,
  isApiCallError: (error: unknown): error is APICallError => APICallError.isInstance(error),
};

export type OpenAiEmbeddingClient = typeof openAiEmbeddingClient;
