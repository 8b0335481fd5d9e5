// A scripted OpenAI-compatible model server that a web page on another origin may call: every
// answer carries CORS headers and preflights (OPTIONS) are answered, as a model server set up for
// browser agents does. Bound to 127.0.0.1.
//
//   const model = await startCorsMockModel(scenarios, {files: {'/pub/hello.txt': 'hello'}});
//   ... point the page at model.baseUrl ('http://127.0.0.1:PORT/v1') ...
//   await model.close();
//
// Scenarios are chosen as in test/web/mock_model.mjs (whose describeTurn this uses): a marker
// `[[scn:NAME]]` in the newest user message that has one, `turn.step` counting the assistant
// messages after it. A Reply is {text?, tool_calls?: [{id, name, arguments (object)}], pieces?,
// piece_delay_ms?, status?, error?}; `status` answers that HTTP status with `error` as the message.
// `files` are served by GET with CORS headers too (text/plain). Every chat request is recorded in
// `model.requests` ({body, turn, origin}).
import http from 'node:http';
import {describeTurn} from '../web/mock_model.mjs';

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'authorization, content-type',
  'Access-Control-Max-Age': '600',
};
const USAGE = {prompt_tokens: 40, completion_tokens: 12, total_tokens: 52};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function pieces(text, count) {
  if (!text) return [];
  const size = Math.max(1, Math.ceil(text.length / count));
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function chunk(delta, finish) {
  return {id: 'chatcmpl-cors', object: 'chat.completion.chunk', created: 1, model: 'mock',
    choices: [{index: 0, delta, finish_reason: finish ?? null}]};
}

async function sendStream(res, reply) {
  res.writeHead(200, {...CORS, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache'});
  const write = (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
  write(chunk({role: 'assistant', content: ''}));
  for (const piece of pieces(reply.text || '', reply.pieces || 1)) {
    if (reply.piece_delay_ms) await sleep(reply.piece_delay_ms);
    write(chunk({content: piece}));
  }
  (reply.tool_calls || []).forEach((call, index) => {
    write(chunk({tool_calls: [{index, id: call.id, type: 'function', function: {name: call.name, arguments: ''}}]}));
    write(chunk({tool_calls: [{index, function: {arguments: JSON.stringify(call.arguments)}}]}));
  });
  write(chunk({}, reply.tool_calls?.length ? 'tool_calls' : 'stop'));
  write({id: 'chatcmpl-cors', object: 'chat.completion.chunk', created: 1, model: 'mock', choices: [], usage: USAGE});
  res.end('data: [DONE]\n\n');
}

function sendWhole(res, reply) {
  const message = {role: 'assistant', content: reply.text || ''};
  if (reply.tool_calls?.length) {
    message.tool_calls = reply.tool_calls.map((c) => ({id: c.id, type: 'function', function: {name: c.name, arguments: JSON.stringify(c.arguments)}}));
  }
  res.writeHead(200, {...CORS, 'Content-Type': 'application/json'});
  res.end(JSON.stringify({id: 'chatcmpl-cors', object: 'chat.completion', created: 1, model: 'mock',
    choices: [{index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop'}], usage: USAGE}));
}

function sendError(res, status, message) {
  res.writeHead(status, {...CORS, 'Content-Type': 'application/json'});
  res.end(JSON.stringify({error: {message, type: 'mock_error'}}));
}

export async function startCorsMockModel(scenarios, {files = {}} = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (part) => parts.push(part));
    req.on('end', () => {
      const url = new URL(req.url, 'http://127.0.0.1');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS).end();
        return;
      }
      if (req.method === 'GET' && files[url.pathname] !== undefined) {
        res.writeHead(200, {...CORS, 'Content-Type': 'text/plain; charset=utf-8'}).end(files[url.pathname]);
        return;
      }
      if (req.method === 'GET' && url.pathname === '/v1/models') {
        res.writeHead(200, {...CORS, 'Content-Type': 'application/json'});
        res.end(JSON.stringify({object: 'list', data: [{id: 'mock', object: 'model'}]}));
        return;
      }
      if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
        sendError(res, 404, `mock model: no route ${req.method} ${url.pathname}`);
        return;
      }
      let body;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        sendError(res, 400, 'mock model: the body is not JSON');
        return;
      }
      const turn = describeTurn(body.messages || []);
      requests.push({body, turn, origin: req.headers.origin || ''});
      const scenario = scenarios[turn.name] || scenarios.default;
      if (!scenario) {
        sendError(res, 400, `mock model: no scenario for '${turn.name}'`);
        return;
      }
      const reply = scenario(turn);
      if (reply.status) sendError(res, reply.status, reply.error || 'mock failure');
      else if (body.stream) sendStream(res, reply).catch(() => res.destroy());
      else sendWhole(res, reply);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
