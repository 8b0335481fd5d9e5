// The agent SDKs most people build on, pointed at keel's /v1/chat/completions as their model:
// the Vercel AI SDK (ai with @ai-sdk/openai-compatible) and LangChain (@langchain/openai), each
// with a client-side tool loop and structured output, whole and streamed, against the scripted
// mock model of keel_openai_test_server. Run by agent_sdk_clients_test.sh.
import assert from 'node:assert/strict';
import { aiSdkChecks } from './ai_sdk_checks.mjs';
import { check, countModelCalls, finish } from './client_checks.mjs';

const baseURL = process.env.KEEL_OPENAI_URL;
const apiKey = process.env.KEEL_OPENAI_TOKEN;
const modules = process.env.KEEL_NPM_MODULES;
const ai = await import(`${modules}/ai/dist/index.js`);
const { createOpenAICompatible } = await import(`${modules}/@ai-sdk/openai-compatible/dist/index.js`);
const { ChatOpenAI } = await import(`${modules}/@langchain/openai/dist/index.js`);
const { z } = await import(`${modules}/zod/index.js`);

const modelCalls = () => countModelCalls(baseURL, apiKey);

const keel = createOpenAICompatible({ name: 'keel', baseURL, apiKey, supportsStructuredOutputs: true });
await aiSdkChecks({ ai, z, model: keel('default'), via: '', modelCalls });

const chat = new ChatOpenAI({ model: 'default', apiKey, configuration: { baseURL } });

await check('LangChain bindTools hands the call to the client and continues with its result', async () => {
  const bound = chat.bindTools([{ type: 'function', function: {
    name: 'get_weather', description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]);
  const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const first = await bound.invoke(messages);
  assert.equal(first.tool_calls.length, 1);
  assert.equal(first.tool_calls[0].name, 'get_weather');
  assert.deepEqual(first.tool_calls[0].args, { city: 'Paris' });
  const second = await bound.invoke([...messages, first,
    { role: 'tool', tool_call_id: first.tool_calls[0].id, content: 'sunny, 21C' }]);
  assert.equal(second.content, 'It is sunny in Paris.');
});

await check('LangChain streams the client tool call and its result continues the run', async () => {
  const bound = chat.bindTools([{ type: 'function', function: {
    name: 'get_weather', description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]);
  const messages = [{ role: 'user', content: 'Stream the weather in Paris' }];
  let first;
  for await (const chunk of await bound.stream(messages)) first = first ? first.concat(chunk) : chunk;
  assert.equal(first.tool_calls.length, 1);
  assert.equal(first.tool_calls[0].name, 'get_weather');
  assert.deepEqual(first.tool_calls[0].args, { city: 'Paris' });
  let text = '';
  for await (const chunk of await bound.stream([...messages, first,
    { role: 'tool', tool_call_id: first.tool_calls[0].id, content: 'sunny, 21C' }])) text += chunk.content;
  assert.equal(text, 'It is sunny in Paris.');
});

await check('LangChain withStructuredOutput streamed ends with the object', async () => {
  const structured = chat.withStructuredOutput(z.object({ city: z.string(), sunny: z.boolean() }), { name: 'place' });
  let last;
  for await (const part of await structured.stream('Answer in JSON')) last = part;
  assert.deepEqual(last, { city: 'Paris', sunny: true });
});

await check('LangChain withStructuredOutput gets the object', async () => {
  const structured = chat.withStructuredOutput(z.object({ city: z.string(), sunny: z.boolean() }), { name: 'place' });
  assert.deepEqual(await structured.invoke('Answer in JSON'), { city: 'Paris', sunny: true });
});

await check('LangChain does not re-run a failed run', async () => {
  const before = await modelCalls();
  await assert.rejects(chat.invoke('please fail'));
  assert.equal(await modelCalls() - before, 1);
});

finish('agent SDK clients test');
