// A scripted tool-calling model for Haiku's tests in a real VS Code; the README has the script.
const vscode = require('vscode');

const requests = (globalThis.__fakeLmRequests = globalThis.__fakeLmRequests || []);

function partsText(message) {
  return message.content
    .map((part) => {
      if (part instanceof vscode.LanguageModelTextPart) { return part.value; }
      if (part instanceof vscode.LanguageModelToolResultPart) {
        return part.content.map((inner) => (inner instanceof vscode.LanguageModelTextPart ? inner.value : typeof inner.value === 'string' ? inner.value : '')).join('');
      }
      return '';
    })
    .join('');
}

/** The tool call a message answers, by call id, looked up in earlier assistant messages. */
function toolNameOfResult(messages, resultPart) {
  for (const message of messages) {
    for (const part of message.content) {
      if (part instanceof vscode.LanguageModelToolCallPart && part.callId === resultPart.callId) { return part.name; }
    }
  }
  return undefined;
}

function lastUserText(messages) {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    const texts = message.role === vscode.LanguageModelChatMessageRole.User ? message.content.filter((part) => part instanceof vscode.LanguageModelTextPart) : [];
    if (texts.length > 0) {
      // Instructions may travel as earlier text parts of the same user message: the question is the last one.
      return texts[texts.length - 1].value;
    }
  }
  return '';
}

/** Texts of the results of search tools, oldest first. */
function searchResultTexts(messages) {
  const texts = [];
  for (const message of messages) {
    for (const part of message.content) {
      if (part instanceof vscode.LanguageModelToolResultPart && /search$/.test(toolNameOfResult(messages, part) || '')) {
        texts.push(partsText({ content: [part] }));
      }
    }
  }
  return texts;
}

/** The chunk ids of the latest cite call. */
function lastCitedIds(messages) {
  let ids = [];
  for (const message of messages) {
    for (const part of message.content) {
      if (part instanceof vscode.LanguageModelToolCallPart && /cite$/.test(part.name)) { ids = (part.input && part.input.chunk_ids) || []; }
    }
  }
  return ids;
}

let callCounter = 0;
function toolCall(name, input) {
  callCounter += 1;
  return new vscode.LanguageModelToolCallPart(`fake-call-${callCounter}`, name, input);
}

function decide(messages, toolNames) {
  const last = messages[messages.length - 1];
  const results = last ? last.content.filter((part) => part instanceof vscode.LanguageModelToolResultPart) : [];
  const lastResultName = results.length > 0 ? toolNameOfResult(messages, results[results.length - 1]) || '' : '';
  // After loading a capability the model goes on with the question itself.
  if (results.length > 0 && lastResultName !== 'load_capability') {
    const resultPart = results[results.length - 1];
    const name = lastResultName;
    const text = partsText({ content: [resultPart] });
    if (name === 'rag_search' || name === 'search') {
      // A question that asks for "two sources" cites the first two distinct ids, else the first.
      const wanted = /\btwo sources\b/i.test(lastUserText(messages)) ? 2 : 1;
      const chunkIds = [...new Set([...text.matchAll(/\[([A-Za-z0-9_-]{6,})\]/g)].map((match) => match[1]))].slice(0, wanted);
      const citeTool = toolNames.includes('rag_cite') ? 'rag_cite' : toolNames.includes('cite') ? 'cite' : undefined;
      if (chunkIds.length > 0 && citeTool) { return [toolCall(citeTool, { chunk_ids: chunkIds })]; }
      return [new vscode.LanguageModelTextPart('No evidence found.')];
    }
    if (name === 'execute_code') {
      return [new vscode.LanguageModelTextPart(`Analysis done. ${text.split('\n')[0]}`)];
    }
    if (name === 'rag_cite' || name === 'cite') {
      // The evidence is the latest search result the conversation holds (not the instructions or tool descriptions).
      const evidence = searchResultTexts(messages).pop() || '';
      const content = ((/Content:\s*([^\n]{1,80})/.exec(evidence) || [])[1] || 'the cited source').trim();
      // One marker per cited id, numbered from 1 in the order cited.
      const cited = lastCitedIds(messages).length;
      const more = Array.from({ length: Math.max(0, cited - 1) }, (_, index) => ` and another source agrees [${index + 2}]`).join('');
      return [new vscode.LanguageModelTextPart(`According to the documents, ${content} [1]${more}.`)];
    }
    return [new vscode.LanguageModelTextPart(`Tool ${name} answered.`)];
  }
  const userText = lastUserText(messages);
  const forced = /#tool:([A-Za-z_]+)\((.*)\)\s*$/.exec(userText);
  if (forced && toolNames.includes(forced[1])) { return [toolCall(forced[1], JSON.parse(forced[2] || '{}'))]; }
  // Routed mode defers the tool sets: load rag first.
  if (!toolNames.includes('rag_search') && toolNames.includes('load_capability')) { return [toolCall('load_capability', { name: 'rag' })]; }
  if (toolNames.includes('rag_search')) { return [toolCall('rag_search', { query: userText.slice(0, 200) })]; }
  if (toolNames.includes('execute_code')) {
    const query = JSON.stringify(userText.slice(0, 100));
    const code = `const hits = await search(${query}, 3);\nconsole.log("hits:", hits.length);\nif (hits.length) { await cite([hits[0].chunk_id]); }`;
    return [toolCall('execute_code', { code })];
  }
  return [new vscode.LanguageModelTextPart(`fake model echo: ${userText}`)];
}

/** The images (data parts) inside tool results, as `{ mimeType, size }`, in message order. */
function toolResultImages(messages) {
  const images = [];
  for (const message of messages) {
    for (const part of message.content) {
      if (part instanceof vscode.LanguageModelToolResultPart) {
        for (const inner of part.content) {
          if (vscode.LanguageModelDataPart && inner instanceof vscode.LanguageModelDataPart && /^image\//.test(inner.mimeType)) {
            images.push({ mimeType: inner.mimeType, size: inner.data.length });
          }
        }
      }
    }
  }
  return images;
}

/** The scripted provider for one model (`fake-lm/fake-1`, or `fake-lm-vision/fake-vision`, which takes images). */
function scriptedProvider(information) {
  return {
    provideLanguageModelChatInformation() {
      return [information];
    },
    async provideLanguageModelChatResponse(model, messages, options, progress) {
      const toolNames = (options.tools || []).map((tool) => tool.name);
      requests.push({ model: model.id, toolNames, messages: messages.map((message) => ({ role: message.role, text: partsText(message) })), images: toolResultImages(messages) });
      for (const part of decide(messages, toolNames)) {
        if (part instanceof vscode.LanguageModelTextPart) {
          for (const word of part.value.split(/(?<= )/)) { progress.report(new vscode.LanguageModelTextPart(word)); await new Promise((resolve) => setTimeout(resolve, 5)); }
        } else {
          progress.report(part);
        }
      }
    },
    async provideTokenCount(_model, text) { return typeof text === 'string' ? Math.ceil(text.length / 4) : 1; },
  };
}

exports.activate = function activate(context) {
  // toolCalling: true, or the Chat view (Agent mode) does not offer the model in its picker
  context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider('fake-lm', scriptedProvider(
    { id: 'fake-1', name: 'Fake One', family: 'fake', version: '1', maxInputTokens: 100000, maxOutputTokens: 4000, capabilities: { toolCalling: true } },
  )));
  // A separate vendor, so selecting `fake-lm` never lands on it.
  context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider('fake-lm-vision', scriptedProvider(
    { id: 'fake-vision', name: 'Fake Vision', family: 'fake', version: '1', maxInputTokens: 100000, maxOutputTokens: 4000, capabilities: { toolCalling: true, imageInput: true } },
  )));
  // Asking once makes the workbench resolve this vendor, so the Chat view's model picker lists "Fake One".
  return Promise.all([vscode.lm.selectChatModels({ vendor: 'fake-lm' }), vscode.lm.selectChatModels({ vendor: 'fake-lm-vision' })]);
};
