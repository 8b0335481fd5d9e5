// An OpenAI-compatible chat completions backend over fetch (OpenAI, Ollama, vLLM, llama.cpp's
// server, keel serve...), streamed through the response's ReadableStream, with the native client's
// retry rules.
import {readSse} from './sse.mjs';
import {ModelError} from './retry.mjs';
import {callModel} from './http_attempt.mjs';

// The wire form of the core's request (model_request_to_json).
export function openaiBody(request, {name, stream}) {
  const messages = request.messages.map((m) => {
    if (m.role === 'tool') return {role: 'tool', tool_call_id: m.tool_call_id || '', content: m.content};
    if (m.role === 'assistant' && m.tool_calls?.length) {
      return {role: 'assistant', content: m.content || null, tool_calls: m.tool_calls.map((c) => (
        {id: c.id, type: 'function', function: {name: c.name, arguments: c.arguments}}))};
    }
    return {role: m.role, content: m.content};
  });
  const body = {model: name, messages};
  if (request.tools?.length) {
    body.tools = request.tools.map((t) => ({type: 'function', function: {name: t.name, description: t.description, parameters: t.parameters}}));
    const choice = request.tool_choice || '';
    if (choice === 'none' || choice === 'required' || choice === 'auto') body.tool_choice = choice;
    else if (choice) body.tool_choice = {type: 'function', function: {name: choice}};
  }
  const s = request.sampling || {};
  for (const key of ['temperature', 'max_tokens', 'top_p', 'seed', 'stop']) if (s[key] !== undefined) body[key] = s[key];
  if (stream) {
    body.stream = true;
    body.stream_options = {include_usage: true};
  }
  return body;
}

// Content as a string, or as parts: text parts are the text, Mistral's "thinking" parts (whose
// "thinking" is a string or a list of text pieces) the reasoning.
function contentText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((p) => p && p.type !== 'thinking').map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}

function contentThinking(content) {
  if (!Array.isArray(content)) return '';
  const piece = (t) => (typeof t === 'string' ? t : Array.isArray(t) ? t.map((x) => (typeof x?.text === 'string' ? x.text : '')).join('') : '');
  return content.filter((p) => p?.type === 'thinking').map((p) => piece(p.thinking)).join('');
}

// A chunk's or reply's usage: "usage", or else Groq's "x_groq": {"usage"}.
const usageField = (json) => json?.usage || json?.x_groq?.usage || null;

function usageOf(u) {
  if (!u) return {prompt_tokens: 0, completion_tokens: 0};
  const usage = {prompt_tokens: u.prompt_tokens || 0, completion_tokens: u.completion_tokens || 0};
  const cached = u.prompt_tokens_details?.cached_tokens;
  if (cached) usage.cached_prompt_tokens = cached;
  return usage;
}

function replyFromMessage(json, what) {
  const choice = json?.choices?.[0];
  if (!choice || typeof choice !== 'object') throw new ModelError(`${what} sent no choices`, {retryable: true});
  const msg = choice.message || {};
  return {
    // A refusal (content null, the reason in "refusal") is what the user must read.
    text: contentText(msg.content) || (typeof msg.refusal === 'string' ? msg.refusal : ''),
    reasoning: msg.reasoning_content || msg.reasoning || contentThinking(msg.content),
    tool_calls: (msg.tool_calls || []).map((c) => ({id: c.id || '', name: c.function?.name || '', arguments: c.function?.arguments || '{}'})),
    finish_reason: choice.finish_reason || '',
    usage: usageOf(usageField(json)),
    model: json.model || '',
  };
}

async function readStream(response, signal, what, {onDelta, onReasoningDelta}) {
  const reply = {text: '', reasoning: '', tool_calls: [], finish_reason: '', usage: {prompt_tokens: 0, completion_tokens: 0}, model: ''};
  const calls = [];
  let sawDone = false;
  let streamed = false;
  try {
    for await (const message of readSse(response.body, signal)) {
      if (message.data === '[DONE]') {
        sawDone = true;
        break;
      }
      const chunk = JSON.parse(message.data);
      if (chunk.error) throw new ModelError(`${what} reported an error mid-stream: ${chunk.error.message || JSON.stringify(chunk.error)}`);
      if (chunk.model) reply.model = chunk.model;
      if (usageField(chunk)) reply.usage = usageOf(usageField(chunk));
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta || {};
      // Text, and a refusal streamed in its own field: the user reads it as the answer.
      const text = contentText(delta.content) + (typeof delta.refusal === 'string' ? delta.refusal : '');
      if (text) {
        reply.text += text;
        streamed = true;
        onDelta?.(text);
      }
      const thinking = delta.reasoning_content ?? delta.reasoning ?? contentThinking(delta.content);
      if (typeof thinking === 'string' && thinking) {
        reply.reasoning += thinking;
        onReasoningDelta?.(thinking);
      }
      for (const c of delta.tool_calls || []) {
        const i = Number.isInteger(c.index) ? c.index : calls.length;
        calls[i] ??= {id: '', name: '', arguments: ''};
        if (c.id) calls[i].id = c.id;
        if (c.function?.name) calls[i].name += c.function.name;
        if (c.function?.arguments) calls[i].arguments += c.function.arguments;
        streamed = true;
      }
      if (choice.finish_reason) reply.finish_reason = choice.finish_reason;
    }
  } catch (e) {
    if (signal?.aborted) throw e;
    if (e instanceof ModelError) throw e;
    // Broken JSON or a dropped connection: safe to retry only if nothing reached the caller.
    throw new ModelError(`${what} stream broke: ${e.message || e}`, {retryable: !streamed});
  }
  if (!sawDone && !reply.finish_reason) {
    throw new ModelError(`${what} stream ended before the reply was complete`, {retryable: !streamed});
  }
  reply.tool_calls = calls.filter(Boolean).map((c) => ({...c, arguments: c.arguments || '{}'}));
  return reply;
}

// options: {baseUrl, apiKey, name, headers, stream (default true), timeoutMs (per attempt, default
// 120000), retry ({maxAttempts, initialDelayMs, maxDelayMs, multiplier}), fetch}.
export function openaiModel(options) {
  const base = String(options.baseUrl || '').replace(/\/+$/, '');
  if (!base) throw new TypeError('openaiModel needs a baseUrl such as http://127.0.0.1:11434/v1');
  const url = `${base}/chat/completions`;
  const what = `the model server`;
  const fetchImpl = options.fetch || globalThis.fetch.bind(globalThis);
  const headers = {...(options.headers || {})};
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const stream = options.stream !== false;
  return {
    describe: () => `openai-compatible ${base} (${options.name || 'default'})`,
    complete(request, callbacks = {}) {
      return callModel({fetchImpl, url, headers, body: openaiBody(request, {name: options.name, stream}), what, timeoutMs: options.timeoutMs,
        retry: options.retry, stream, readStream, replyFromJson: (json) => replyFromMessage(json, what)}, callbacks);
    },
  };
}
