// The edge host: keel's agent as a stateless fetch-style request handler, (Request) => Response,
// for Node, Deno and serverless functions. Nothing is kept between requests:
//   POST /v1/chat/completions  the OpenAI-compatible endpoint of `keel serve`: the conversation in,
//                              a whole run (tools on this side), the answer out (whole or streamed)
//   POST /v1/keel/step         one round per invocation: {task} or {checkpoint, approvals?} in,
//                              {events, checkpoint, done, answer?, error?, approvals_needed?} out
//   GET  /v1/models            the one model this handler serves
// Every request must carry the configured bearer key; a request from a browser Origin not in
// allowedOrigins, or to a Host not in allowedHosts (default: loopback names), is refused.
import {Agent} from './agent.mjs';
import {KeelError, loadCore} from './core.mjs';

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];
const MAX_BODY = 4 * 1024 * 1024;

function json(status, body, extra = {}) {
  return new Response(JSON.stringify(body), {status, headers: {'content-type': 'application/json', ...extra}});
}

function apiError(status, message, type = 'invalid_request_error') {
  return json(status, {error: {message, type}});
}

function hostName(host) {
  if (!host) return '';
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  return host.split(':')[0];
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

// OpenAI messages -> the core's: the last user message is the task, what precedes it the earlier
// conversation (system messages are the handler's own and are dropped).
function conversationFrom(messages) {
  if (!Array.isArray(messages) || !messages.length) throw new KeelError('invalid_argument', "'messages' must be a non-empty array");
  const out = [];
  for (const m of messages) {
    if (!m || typeof m !== 'object' || typeof m.role !== 'string') throw new KeelError('invalid_argument', 'each message needs a role');
    if (m.role === 'system' || m.role === 'developer') continue;
    if (m.role === 'tool') out.push({role: 'tool', content: textOf(m.content), tool_call_id: m.tool_call_id || ''});
    else if (m.role === 'assistant') {
      out.push({role: 'assistant', content: textOf(m.content), tool_calls: (m.tool_calls || []).map((c) => (
        {id: c.id || '', name: c.function?.name || '', arguments: c.function?.arguments || '{}'}))});
    } else if (m.role === 'user') out.push({role: 'user', content: textOf(m.content)});
    else throw new KeelError('invalid_argument', `unknown message role '${m.role}'`);
  }
  const last = out[out.length - 1];
  if (!last || last.role !== 'user' || !last.content.trim()) throw new KeelError('invalid_argument', 'the last message must be a user message with text: it is the task');
  return {earlier: out.slice(0, -1), task: last.content};
}

// options: {model, tools, systemPrompt, config, maxRounds, apiKey (required unless
// allowUnauthenticated), allowedHosts, allowedOrigins, approve (for /v1/chat/completions; without
// it calls that need approval are refused), modelName (what /v1/models lists)}.
export async function createEdgeHandler(options = {}) {
  if (!options.apiKey && !options.allowUnauthenticated) {
    throw new KeelError('invalid_argument', 'createEdgeHandler needs an apiKey (or allowUnauthenticated: true for a loopback test)');
  }
  const core = await loadCore(options.core || {});
  const agent = new Agent(core, {model: options.model, tools: options.tools || [], systemPrompt: options.systemPrompt,
    config: options.config, maxRounds: options.maxRounds, approve: options.approve});
  const hosts = new Set(options.allowedHosts || LOOPBACK_HOSTS);
  const origins = new Set(options.allowedOrigins || []);
  const modelName = options.modelName || 'keel';

  async function readBody(request) {
    const tooBig = () => new KeelError('invalid_argument', `the body is over ${MAX_BODY} bytes`);
    if (Number(request.headers.get('content-length') || 0) > MAX_BODY) throw tooBig();  // before reading it
    const text = await request.text();
    if (text.length > MAX_BODY) throw tooBig();
    try {
      return JSON.parse(text);
    } catch {
      throw new KeelError('invalid_argument', 'the body is not JSON');
    }
  }

  async function chatCompletions(request) {
    const body = await readBody(request);
    const {earlier, task} = conversationFrom(body.messages);
    const id = `chatcmpl-${Date.now().toString(36)}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (choices) => ({id, object: 'chat.completion.chunk', created, model: modelName, choices});
    const delta = (d, finish = null) => chunk([{index: 0, delta: d, finish_reason: finish}]);
    const usageOf = (u) => ({...u, total_tokens: u.prompt_tokens + u.completion_tokens});
    const failure = (e) => `the run failed (${e.kind}): ${e.message}`;
    const runWith = (onEvent, signal) => agent.runConversation(task, earlier, {onEvent, signal});
    if (!body.stream) {
      const result = await runWith(undefined, request.signal);
      if (result.error) return apiError(result.error.kind === 'backend' ? 502 : 500, failure(result.error), 'keel_run_failed');
      return json(200, {id, object: 'chat.completion', created, model: modelName,
        choices: [{index: 0, message: {role: 'assistant', content: result.answer}, finish_reason: 'stop'}],
        usage: usageOf(result.usage)});
    }
    const encoder = new TextEncoder();
    const stream = new ReadableStream({
      async start(controller) {
        const send = (obj) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(obj)}\n\n`));
        send(delta({role: 'assistant', content: ''}));
        // Only the text of the reply that answers is the answer: earlier rounds' text is held back
        // until the model's reply turns out to make no calls.
        let held = [];
        const result = await runWith((ev) => {
          if (ev.type === 'status' && ev.status === 'calling_model') held = [];
          else if (ev.type === 'model_delta') held.push(ev.text);
          else if (ev.type === 'model_reply' && !ev.tool_calls.length) {
            for (const t of held) send(delta({content: t}));
            held = [];
          }
        }, request.signal);
        if (result.error) send({error: {message: failure(result.error), type: 'keel_run_failed'}});
        else {
          send(delta({}, 'stop'));
          send({...chunk([]), usage: usageOf(result.usage)});
        }
        controller.enqueue(encoder.encode('data: [DONE]\n\n'));
        controller.close();
      },
    });
    return new Response(stream, {status: 200, headers: {'content-type': 'text/event-stream', 'cache-control': 'no-cache'}});
  }

  async function step(request) {
    const body = await readBody(request);
    const result = await agent.runOneRound(body, {signal: request.signal});
    return json(200, result);
  }

  return async function handle(request) {
    const url = new URL(request.url);
    if (!hosts.has(hostName(request.headers.get('host') || url.host))) {
      return apiError(421, `host '${request.headers.get('host') || url.host}' is not served here; add it to allowedHosts`, 'host_not_allowed');
    }
    const origin = request.headers.get('origin');
    if (origin && !origins.has(origin)) return apiError(403, `origin ${origin} is not allowed; add it to allowedOrigins`, 'origin_not_allowed');
    if (options.apiKey && request.headers.get('authorization') !== `Bearer ${options.apiKey}`) {
      return apiError(401, 'missing or wrong bearer key', 'authentication_error');
    }
    try {
      if (request.method === 'GET' && url.pathname === '/v1/models') {
        return json(200, {object: 'list', data: [{id: modelName, object: 'model', owned_by: 'keel'}]});
      }
      if (request.method === 'POST' && url.pathname === '/v1/chat/completions') return await chatCompletions(request);
      if (request.method === 'POST' && url.pathname === '/v1/keel/step') return await step(request);
      return apiError(404, `no route ${request.method} ${url.pathname}`, 'not_found');
    } catch (e) {
      if (e instanceof KeelError && e.kind === 'invalid_argument') return apiError(400, e.message);
      return apiError(500, `internal error: ${e.message || e}`, 'internal_error');
    }
  };
}

// Serves a handler on Node's http module (the edge tests and `node` deployments); resolves to
// {url, close()}.
export async function serveOnNode(handler, {port = 0, host = '127.0.0.1'} = {}) {
  const http = await import('node:http');
  const server = http.createServer(async (req, res) => {
    const controller = new AbortController();
    res.on('close', () => { if (!res.writableFinished) controller.abort(new Error('the client went away')); });
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
    const request = new Request(`http://${req.headers.host || host}${req.url}`, {method: req.method, headers: req.headers, body, signal: controller.signal});
    let response;
    try {
      response = await handler(request);
    } catch (e) {
      response = apiError(500, `internal error: ${e.message || e}`, 'internal_error');
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const part of response.body) res.write(part);
    }
    res.end();
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}
