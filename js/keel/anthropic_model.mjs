// Anthropic's Messages API over fetch, streamed, with the same retry rules as the OpenAI-compatible
// backend. In a page it sends Anthropic's header for direct browser access.
import {readSse} from './sse.mjs';
import {ModelError} from './retry.mjs';
import {callModel} from './http_attempt.mjs';

function parseArguments(text) {
  try {
    const v = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

// The wire form of the core's request: system text apart, tool results as user turns of
// tool_result blocks (consecutive results in one turn), calls as tool_use blocks.
export function anthropicBody(request, {name, maxTokens, stream}) {
  const system = [];
  const messages = [];
  const push = (role, block) => {
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(block);
    else messages.push({role, content: [block]});
  };
  for (const m of request.messages) {
    if (m.role === 'system') system.push(m.content);
    else if (m.role === 'tool') {
      push('user', {type: 'tool_result', tool_use_id: m.tool_call_id || '', content: m.content,
        ...(m.metadata?.status && m.metadata.status !== 'ok' ? {is_error: true} : {})});
    } else if (m.role === 'assistant') {
      if (m.content) push('assistant', {type: 'text', text: m.content});
      for (const c of m.tool_calls || []) push('assistant', {type: 'tool_use', id: c.id, name: c.name, input: parseArguments(c.arguments)});
      if (!m.content && !(m.tool_calls || []).length) push('assistant', {type: 'text', text: '(no reply)'});
    } else push('user', {type: 'text', text: m.content});
  }
  const s = request.sampling || {};
  const body = {model: name, max_tokens: s.max_tokens || maxTokens || 4096, messages};
  if (system.length) body.system = system.join('\n\n');
  if (request.tools?.length) {
    body.tools = request.tools.map((t) => ({name: t.name, description: t.description, input_schema: t.parameters}));
    const choice = request.tool_choice || '';
    if (choice === 'required') body.tool_choice = {type: 'any'};
    else if (choice === 'none') body.tool_choice = {type: 'none'};
    else if (choice && choice !== 'auto') body.tool_choice = {type: 'tool', name: choice};
  }
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.top_p !== undefined) body.top_p = s.top_p;
  if (s.top_k !== undefined) body.top_k = s.top_k;
  if (s.stop?.length) body.stop_sequences = s.stop;
  if (stream) body.stream = true;
  return body;
}

// Anthropic's stop reasons in the OpenAI vocabulary the core and the native client use.
function finishReasonOf(stop) {
  if (stop === 'end_turn' || stop === 'stop_sequence') return 'stop';
  if (stop === 'tool_use') return 'tool_calls';
  if (stop === 'max_tokens') return 'length';
  return stop || '';
}

// A refusal may come with no content at all: its explanation is then the answer.
const refusalText = (holder) => (holder?.stop_reason === 'refusal' ? holder.stop_details?.explanation || '' : '');

function usageOf(u, into = {prompt_tokens: 0, completion_tokens: 0}) {
  if (!u) return into;
  if (u.input_tokens !== undefined) into.prompt_tokens = u.input_tokens + (u.cache_read_input_tokens || 0) + (u.cache_creation_input_tokens || 0);
  if (u.cache_read_input_tokens) into.cached_prompt_tokens = u.cache_read_input_tokens;
  if (u.output_tokens !== undefined) into.completion_tokens = u.output_tokens;
  return into;
}

function replyFromMessage(json) {
  const reply = {text: '', reasoning: '', tool_calls: [], finish_reason: finishReasonOf(json.stop_reason), usage: usageOf(json.usage), model: json.model || ''};
  for (const b of json.content || []) {
    if (b.type === 'text') reply.text += b.text;
    else if (b.type === 'thinking') reply.reasoning += b.thinking || '';
    else if (b.type === 'tool_use') reply.tool_calls.push({id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {})});
  }
  if (!reply.text) reply.text = refusalText(json);
  return reply;
}

// A tool_use block as it starts: its input arrives in deltas, or (prefilled) whole in the block.
const toolBlock = (b) => ({type: 'tool_use', id: b.id, name: b.name, json: '',
  start: b.input && typeof b.input === 'object' && Object.keys(b.input).length ? JSON.stringify(b.input) : ''});

async function readStream(response, signal, what, {onDelta, onReasoningDelta}) {
  const reply = {text: '', reasoning: '', tool_calls: [], finish_reason: '', usage: {prompt_tokens: 0, completion_tokens: 0}, model: ''};
  const blocks = new Map();  // index -> block; blocks that came whole in message_start below 0
  let stopped = false;
  let streamed = false;
  const text = (t) => {
    if (!t) return;
    reply.text += t;
    streamed = true;
    onDelta?.(t);
  };
  const thinking = (t) => {
    if (!t) return;
    reply.reasoning += t;
    onReasoningDelta?.(t);
  };
  try {
    for await (const message of readSse(response.body, signal)) {
      const ev = JSON.parse(message.data);
      if (ev.type === 'error') throw new ModelError(`${what} reported an error mid-stream: ${ev.error?.message || message.data}`, {retryable: !streamed && ev.error?.type === 'overloaded_error'});
      if (ev.type === 'message_start') {
        const m = ev.message || {};
        reply.model = m.model || '';
        usageOf(m.usage, reply.usage);
        // A message may start with whole blocks, and even its stop reason, and send no block event.
        const content = Array.isArray(m.content) ? m.content : [];
        content.forEach((b, i) => {
          if (b?.type === 'text') text(b.text);
          else if (b?.type === 'thinking') thinking(b.thinking);
          else if (b?.type === 'tool_use') blocks.set(i - content.length, toolBlock(b));
        });
        if (m.stop_reason) reply.finish_reason = finishReasonOf(m.stop_reason);
      } else if (ev.type === 'content_block_start') {
        const b = ev.content_block || {};
        blocks.set(ev.index, b.type === 'tool_use' ? toolBlock(b) : {type: b.type});
      } else if (ev.type === 'content_block_delta') {
        const d = ev.delta || {};
        if (d.type === 'text_delta') text(d.text);
        else if (d.type === 'thinking_delta') thinking(d.thinking);
        else if (d.type === 'input_json_delta' && blocks.has(ev.index)) {
          blocks.get(ev.index).json += d.partial_json;
          streamed = true;
        }
      } else if (ev.type === 'message_delta') {
        if (ev.delta?.stop_reason) reply.finish_reason = finishReasonOf(ev.delta.stop_reason);
        if (!reply.text) text(refusalText(ev.delta));
        usageOf(ev.usage, reply.usage);
      } else if (ev.type === 'message_stop') {
        stopped = true;
        break;
      }
    }
  } catch (e) {
    if (signal?.aborted || e instanceof ModelError) throw e;
    throw new ModelError(`${what} stream broke: ${e.message || e}`, {retryable: !streamed});
  }
  if (!stopped) throw new ModelError(`${what} stream ended before message_stop`, {retryable: !streamed});
  for (const [, b] of [...blocks].sort((x, y) => x[0] - y[0])) {
    if (b.type === 'tool_use') reply.tool_calls.push({id: b.id, name: b.name, arguments: b.json || b.start || '{}'});
  }
  return reply;
}

// options: {baseUrl (default https://api.anthropic.com), apiKey, name, maxTokens, version, headers,
// stream (default true), timeoutMs, retry, fetch}.
export function anthropicModel(options) {
  const base = String(options.baseUrl || 'https://api.anthropic.com').replace(/\/+$/, '');
  const url = `${base}/v1/messages`;
  const what = 'the Anthropic API';
  const fetchImpl = options.fetch || globalThis.fetch.bind(globalThis);
  const headers = {'anthropic-version': options.version || '2023-06-01', ...(options.headers || {})};
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (typeof window === 'object') headers['anthropic-dangerous-direct-browser-access'] = 'true';
  const stream = options.stream !== false;
  return {
    describe: () => `anthropic ${base} (${options.name || 'default'})`,
    complete(request, callbacks = {}) {
      return callModel({fetchImpl, url, headers, body: anthropicBody(request, {name: options.name, maxTokens: options.maxTokens, stream}), what, timeoutMs: options.timeoutMs,
        retry: options.retry, stream, readStream, replyFromJson: replyFromMessage}, callbacks);
    },
  };
}
