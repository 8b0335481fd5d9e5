// A scripted OpenAI-compatible model server for the web UI's end-to-end test, on 127.0.0.1.
//
//   const model = await startMockModel(scenarios);   // scenarios: {name: (turn) => Reply}
//   ... point keel at model.baseUrl ('http://127.0.0.1:PORT/v1') ...
//   await model.close();
//
// POST /v1/chat/completions answers streamed (chat.completion.chunk over SSE) or whole, as the
// request asks. The server keeps no state between requests: the scenario is named by a marker
// `[[scn:NAME]]` in the newest user message that carries one, and `turn.step` counts the assistant
// messages after that message, so a retried or resumed request gets the same answer.
// A Reply is {text?, tool_calls?: [{id, name, arguments (object)}], pieces?, piece_delay_ms?}.
// GET /v1/models lists one model. Every request is recorded in `model.requests`.
import http from 'node:http';

const MARKER = /\[\[scn:([a-z0-9_-]+)\]\]/;

function messageText(message) {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) {
    return message.content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

// What the scenario function sees: its name, the step, the messages after the marker.
export function describeTurn(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== 'user') continue;
    const found = MARKER.exec(messageText(messages[i]));
    if (!found) continue;
    const after = messages.slice(i + 1);
    return {
      name: found[1],
      step: after.filter((m) => m.role === 'assistant').length,
      toolResults: after.filter((m) => m.role === 'tool').map(messageText),
      task: messageText(messages[i]),
    };
  }
  return {name: '', step: 0, toolResults: [], task: ''};
}

function splitText(text, pieces) {
  if (!text) return [];
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function chunk(id, delta, finish) {
  return {
    id, object: 'chat.completion.chunk', created: 1, model: 'mock',
    choices: [{index: 0, delta, finish_reason: finish ?? null}],
  };
}

const USAGE = {prompt_tokens: 40, completion_tokens: 12, total_tokens: 52};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function sendStream(res, reply) {
  res.writeHead(200, {'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache'});
  const id = 'chatcmpl-mock';
  const write = (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
  write(chunk(id, {role: 'assistant', content: ''}));
  for (const piece of splitText(reply.text || '', reply.pieces || 4)) {
    if (reply.piece_delay_ms) await sleep(reply.piece_delay_ms);
    write(chunk(id, {content: piece}));
  }
  const calls = reply.tool_calls || [];
  calls.forEach((call, index) => {
    write(chunk(id, {tool_calls: [{index, id: call.id, type: 'function',
                                   function: {name: call.name, arguments: ''}}]}));
    write(chunk(id, {tool_calls: [{index, function: {arguments: JSON.stringify(call.arguments)}}]}));
  });
  write(chunk(id, {}, calls.length ? 'tool_calls' : 'stop'));
  write({id, object: 'chat.completion.chunk', created: 1, model: 'mock', choices: [], usage: USAGE});
  res.end('data: [DONE]\n\n');
}

function sendWhole(res, reply) {
  const calls = (reply.tool_calls || []).map((call) => ({
    id: call.id, type: 'function', function: {name: call.name, arguments: JSON.stringify(call.arguments)},
  }));
  const message = {role: 'assistant', content: reply.text || ''};
  if (calls.length) message.tool_calls = calls;
  const body = {
    id: 'chatcmpl-mock', object: 'chat.completion', created: 1, model: 'mock',
    choices: [{index: 0, message, finish_reason: calls.length ? 'tool_calls' : 'stop'}],
    usage: USAGE,
  };
  res.writeHead(200, {'Content-Type': 'application/json'});
  res.end(JSON.stringify(body));
}

function sendError(res, status, message) {
  res.writeHead(status, {'Content-Type': 'application/json'});
  res.end(JSON.stringify({error: {message, type: 'mock_error'}}));
}

export async function startMockModel(scenarios) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (part) => parts.push(part));
    req.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, {'Content-Type': 'application/json'});
        res.end(JSON.stringify({object: 'list', data: [{id: 'mock', object: 'model'}]}));
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        sendError(res, 404, `mock model: no route ${req.method} ${req.url}`);
        return;
      }
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        sendError(res, 400, 'mock model: the body is not JSON');
        return;
      }
      const turn = describeTurn(body.messages || []);
      requests.push({body, turn});
      const scenario = scenarios[turn.name] || scenarios.default;
      if (!scenario) {
        sendError(res, 400, `mock model: no scenario for '${turn.name}'`);
        return;
      }
      const reply = scenario(turn);
      if (body.stream) {
        sendStream(res, reply).catch(() => res.destroy());
      } else {
        sendWhole(res, reply);
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
