// keel's /v1/responses through the clients that default to the Responses API: the official openai
// client (responses.create, .stream, .retrieve, .inputItems.list, .delete), the OpenAI Agents SDK
// (an Agent with a function tool run by run(), whole and streamed) and the Vercel AI SDK's openai
// provider (openai.responses(profile) with generateText and streamText and a client tool), against
// the scripted mock model of keel_openai_test_server. Run by responses_client_test.sh.
import assert from 'node:assert/strict';
import { aiSdkChecks } from './ai_sdk_checks.mjs';
import { check, countModelCalls, finish } from './client_checks.mjs';

const baseURL = process.env.KEEL_OPENAI_URL;
const apiKey = process.env.KEEL_OPENAI_TOKEN;
const modules = process.env.KEEL_NPM_MODULES;
const { default: OpenAI } = await import(process.env.KEEL_OPENAI_MODULE);
const agents = await import(`${modules}/@openai/agents/dist/index.mjs`);
const ai = await import(`${modules}/ai/dist/index.js`);
const { createOpenAI } = await import(`${modules}/@ai-sdk/openai/dist/index.js`);
const { z } = await import(`${modules}/zod/index.js`);

const modelCalls = () => countModelCalls(baseURL, apiKey);

const client = new OpenAI({ baseURL, apiKey });
const weatherTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

await check('responses.create answers with a response object', async () => {
  const response = await client.responses.create({ model: 'default', input: 'Say hello', instructions: 'Be brief.' });
  assert.match(response.id, /^resp_[0-9a-f]{32}$/);
  assert.equal(response.object, 'response');
  assert.equal(response.status, 'completed');
  assert.equal(response.model, 'default');
  assert.equal(response.output_text, 'Hello from keel.');
  assert.equal(response.output[0].type, 'message');
  assert.equal(response.usage.input_tokens, 7);
  assert.equal(response.usage.output_tokens, 3);
  assert.equal(response.usage.total_tokens, 10);
});

await check('responses.stream sends the text as deltas and a final response', async () => {
  const stream = client.responses.stream({ model: 'default', input: 'Say hello' });
  let deltas = '';
  const types = [];
  stream.on('response.output_text.delta', (event) => { deltas += event.delta; });
  stream.on('event', (event) => { types.push(event.type); });
  const response = await stream.finalResponse();
  assert.equal(deltas, 'Hello from keel.');
  assert.equal(response.output_text, 'Hello from keel.');
  assert.equal(types[0], 'response.created');
  assert.equal(types[1], 'response.in_progress');
  assert.equal(types.at(-1), 'response.completed');
});

await check('responses.create with stream:true yields events in sequence', async () => {
  const events = await client.responses.create({ model: 'default', input: 'Say hello', stream: true });
  let expected = 0;
  let text = '';
  for await (const event of events) {
    assert.equal(event.sequence_number, expected++);
    if (event.type === 'response.output_text.delta') text += event.delta;
  }
  assert.equal(text, 'Hello from keel.');
});

await check('retrieve, inputItems.list and delete a stored response', async () => {
  const created = await client.responses.create({ model: 'default', input: 'Say hello' });
  const retrieved = await client.responses.retrieve(created.id);
  assert.equal(retrieved.id, created.id);
  assert.equal(retrieved.output_text, 'Hello from keel.');
  const items = [];
  for await (const item of client.responses.inputItems.list(created.id)) items.push(item);
  assert.equal(items.length, 1);
  assert.equal(items[0].role, 'user');
  assert.equal(items[0].content[0].text, 'Say hello');
  await client.responses.delete(created.id);
  await assert.rejects(client.responses.retrieve(created.id), (error) => error.status === 404);
});

await check('previous_response_id continues the conversation', async () => {
  const first = await client.responses.create({ model: 'default', input: 'Say hello' });
  const second = await client.responses.create({ model: 'default', input: 'Again', previous_response_id: first.id });
  assert.equal(second.previous_response_id, first.id);
  assert.equal(second.keel.session_id, first.keel.session_id);
});

await check('previous_response_id continues the conversation in a stream', async () => {
  const first = await client.responses.create({ model: 'default', input: 'Say hello' });
  const stream = client.responses.stream({ model: 'default', input: 'Again', previous_response_id: first.id });
  const second = await stream.finalResponse();
  assert.equal(second.previous_response_id, first.id);
  assert.equal(second.output_text, 'Hello from keel.');
  assert.equal(second.keel.session_id, first.keel.session_id);
});

await check('a client function tool comes back as a function_call and its output continues the run', async () => {
  const first = await client.responses.create({ model: 'default', input: 'What is the weather in Paris?', tools: [weatherTool] });
  const call = first.output.find((item) => item.type === 'function_call');
  assert.ok(call, JSON.stringify(first.output));
  assert.equal(call.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
  const second = await client.responses.create({
    model: 'default',
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21C' }],
    tools: [weatherTool],
  });
  assert.equal(second.output_text, 'It is sunny in Paris.');
});

await check('a failed run is a 400 the client does not retry', async () => {
  const before = await modelCalls();
  await assert.rejects(client.responses.create({ model: 'default', input: 'please fail' }), (error) => {
    assert.equal(error.status, 400);
    assert.equal(error.type, 'run_failed');
    return true;
  });
  assert.equal(await modelCalls() - before, 1);
});

// The OpenAI Agents SDK, its default model provider pointed at keel.
agents.setTracingDisabled(true);
agents.setDefaultOpenAIClient(client);
agents.setOpenAIAPI('responses');
const agentWeather = agents.tool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `${city}: sunny, 21C`,
});
const weatherAgent = new agents.Agent({
  name: 'Weather',
  instructions: 'Answer questions about the weather.',
  model: 'default',
  tools: [agentWeather],
});

await check('Agents SDK run() runs the function tool loop', async () => {
  const result = await agents.run(weatherAgent, 'What is the weather in Paris?');
  assert.equal(result.finalOutput, 'It is sunny in Paris.');
});

await check('Agents SDK run() streamed runs the function tool loop', async () => {
  const result = await agents.run(weatherAgent, 'Stream the weather in Paris', { stream: true });
  let text = '';
  for await (const event of result) {
    if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') text += event.data.delta;
  }
  await result.completed;
  assert.equal(result.finalOutput, 'It is sunny in Paris.');
  assert.ok(text.includes('It is sunny in Paris.'), text);
});

await check('Agents SDK run() with previousResponseId continues keel\'s conversation', async () => {
  const first = await agents.run(weatherAgent, 'Say hello');
  assert.equal(first.finalOutput, 'Hello from keel.');
  assert.ok(first.lastResponseId, 'the run reports its response id');
  const second = await agents.run(weatherAgent, 'Again', { previousResponseId: first.lastResponseId });
  assert.equal(second.finalOutput, 'Hello from keel.');
  const stored = await client.responses.retrieve(second.lastResponseId);
  assert.equal(stored.previous_response_id, first.lastResponseId);
  const earlier = await client.responses.retrieve(first.lastResponseId);
  assert.equal(stored.keel.session_id, earlier.keel.session_id);
});

// The Vercel AI SDK's openai provider, Responses API models.
const openai = createOpenAI({ baseURL, apiKey });
await aiSdkChecks({ ai, z, model: openai.responses('default'), via: ' with openai.responses', modelCalls });

finish('responses client test');
