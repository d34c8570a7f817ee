import * as vscode from 'vscode';
import type { LanguageModel } from 'ai';
import { analysisModelOf, type HaikuConfig } from '../core/config';
import { HaikuError } from '../core/errors';
import { languageModelFromChat } from './languageModelAdapter';
import { hasConfiguredEndpoint, type SettingReader } from './settingsMapping';

/** A model ready for the agent, with what error messages and the runs panel call it. */
export interface ResolvedModel {
  model: LanguageModel;
  description: string;
  /** Set for an OpenAI-compatible endpoint (its temperature applies and errors name the URL); unset for a chat model. */
  baseUrl?: string;
}

export interface AnalysisModelSources {
  read: SettingReader;
  getConfig: () => HaikuConfig;
  /** The OpenAI-compatible model for a configuration's `qa.model` (lazy backend). */
  loadConfiguredModel: (config: HaikuConfig) => Promise<{ model: LanguageModel; description: string } | undefined>;
  justification: string;
}

/** A chat model named by id, `vendor/id` or family, as the picker lists them. */
async function chatModelNamed(name: string): Promise<vscode.LanguageModelChat | undefined> {
  const models = await vscode.lm.selectChatModels();
  return models.find((model) => model.id === name || `${model.vendor}/${model.id}` === name) ?? models.find((model) => model.family === name);
}

/**
 * The model `haiku.analysis.model.*` names, or undefined when unset (analysis then runs on the question model).
 * With a base URL (its own or `haiku.model.baseUrl`) the name is a model at that endpoint; otherwise a chat model.
 */
export async function configuredAnalysisModel(sources: AnalysisModelSources): Promise<ResolvedModel | undefined> {
  const config = sources.getConfig();
  const own = config.analysis.model;
  if (!own?.name && !own?.baseUrl) {
    return undefined;
  }
  const model = analysisModelOf(config);
  if (own.baseUrl || hasConfiguredEndpoint(sources.read)) {
    const loaded = await sources.loadConfiguredModel({ ...config, qa: { ...config.qa, model } });
    return loaded ? { ...loaded, baseUrl: model.baseUrl } : undefined;
  }
  const name = own.name ?? '';
  const chatModel = await chatModelNamed(name);
  if (!chatModel) {
    throw new HaikuError(
      'invalid_settings',
      `haiku.analysis.model.name is "${name}", but no chat model has that id. Pick one the chat's model picker lists (id or vendor/id), set haiku.analysis.model.baseUrl for an OpenAI-compatible endpoint, or clear the setting to analyse with the question model.`,
    );
  }
  return { model: languageModelFromChat(chatModel, { justification: sources.justification }), description: `${chatModel.vendor}/${chatModel.id}` };
}
