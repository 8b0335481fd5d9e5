// A model server for the JavaScript package's benchmark, in its own process on 127.0.0.1: each
// conversation gets `add` calls until it holds STEPS tool results, then the answer "done". Whole
// JSON replies; CORS open so a page can call it. Prints "PORT n" when listening.
import http from 'node:http';

const steps = Number(process.env.STEPS || 20);
const CORS = {'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'POST, GET, OPTIONS'};
let served = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'OPTIONS') {
    res.writeHead(204, CORS).end();
    return;
  }
  const parts = [];
  req.on('data', (p) => parts.push(p));
  req.on('end', () => {
    if (req.url.endsWith('/stats')) {
      res.writeHead(200, {'content-type': 'application/json', ...CORS}).end(JSON.stringify({served}));
      return;
    }
    served += 1;
    const body = JSON.parse(Buffer.concat(parts).toString() || '{}');
    const results = (body.messages || []).filter((m) => m.role === 'tool').length;
    const message = results < steps
      ? {role: 'assistant', content: null, tool_calls: [{id: `call_${results + 1}`, type: 'function', function: {name: 'add', arguments: `{"a":${results},"b":1}`}}]}
      : {role: 'assistant', content: 'done'};
    res.writeHead(200, {'content-type': 'application/json', ...CORS});
    res.end(JSON.stringify({id: 'cmpl', object: 'chat.completion', created: 1, model: 'mock',
      choices: [{index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop'}],
      usage: {prompt_tokens: 10, completion_tokens: 2, total_tokens: 12}}));
  });
});
server.listen(0, '127.0.0.1', () => console.log(`PORT ${server.address().port}`));
