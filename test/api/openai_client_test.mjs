// The official `openai` npm client against keel's OpenAI-compatible endpoint
// (keel_openai_test_server; see openai_client_test.sh, which starts it and sets):
//   KEEL_OPENAI_URL     the endpoint's /v1 root
//   KEEL_OPENAI_TOKEN   the bearer token it wants
//   KEEL_OPENAI_MODULE  path of build/npm/node_modules/openai/index.mjs
// Exits non-zero on the first failed check.
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const { default: OpenAI } = await import(pathToFileURL(process.env.KEEL_OPENAI_MODULE).href);
const baseURL = process.env.KEEL_OPENAI_URL;
const client = new OpenAI({ baseURL, apiKey: process.env.KEEL_OPENAI_TOKEN, timeout: 20000, maxRetries: 0 });

async function check(name, fn) {
  try {
    await fn();
    console.log(`ok - ${name}`);
  } catch (error) {
    console.error(`not ok - ${name}`);
    throw error;
  }
}

await check('models.list() names the profiles', async () => {
  const ids = [];
  for await (const model of client.models.list()) {
    assert.equal(model.object, 'model');
    assert.equal(model.owned_by, 'keel');
    assert.equal(typeof model.created, 'number');
    ids.push(model.id);
  }
  assert.deepEqual(ids, ['default', 'fast']);
  const fast = await client.models.retrieve('fast');
  assert.equal(fast.id, 'fast');
});

await check('chat.completions.create() returns the answer', async () => {
  const completion = await client.chat.completions.create({
    model: 'default',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say hello' },
    ],
    temperature: 0.2,
    max_tokens: 200,
  });
  assert.equal(completion.object, 'chat.completion');
  assert.match(completion.id, /^chatcmpl-[0-9a-f]{24}$/);
  assert.equal(completion.model, 'default');
  assert.equal(completion.choices.length, 1);
  assert.deepEqual(completion.choices[0].message.role, 'assistant');
  assert.equal(completion.choices[0].message.content, 'Hello from keel.');
  assert.equal(completion.choices[0].finish_reason, 'stop');
  assert.deepEqual(completion.usage, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  assert.equal(completion.keel.tool_calls, 0);
  assert.match(completion.keel.run_id, /^r_/);
});

await check('a run with a tool round answers with its final text', async () => {
  const completion = await client.chat.completions.create({
    model: 'fast',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in the folder?' }] }],
  });
  assert.equal(completion.choices[0].message.content, 'The folder holds notes.txt.');
  assert.deepEqual(completion.usage, { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 });
  assert.equal(completion.keel.tool_calls, 1);
});

await check('the streaming form yields role, content, stop and usage', async () => {
  const stream = await client.chat.completions.create({
    model: 'default',
    messages: [{ role: 'user', content: 'What is in the folder?' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = '';
  const roles = [];
  const finish = [];
  let usage = null;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks += 1;
    assert.equal(chunk.object, 'chat.completion.chunk');
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.role) roles.push(choice.delta.role);
      if (choice.delta.content) content += choice.delta.content;
      if (choice.finish_reason) finish.push(choice.finish_reason);
    }
  }
  // Text streams as the model writes it: the tool round's words first, the answer after a blank line.
  assert.equal(content, 'Let me look at the folder.\n\nThe folder holds notes.txt.');
  assert.deepEqual(roles, ['assistant']);
  assert.deepEqual(finish, ['stop']);
  assert.deepEqual(usage, { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 });
  assert.ok(chunks >= 4, `expected several chunks, got ${chunks}`);
});

await check('an unknown model is a NotFoundError', async () => {
  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    (error) => {
      assert.ok(error instanceof OpenAI.NotFoundError, String(error));
      assert.equal(error.status, 404);
      assert.equal(error.code, 'model_not_found');
      assert.equal(error.param, 'model');
      return true;
    });
});

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

await check('a client tool call comes back as tool_calls and its result continues the run', async () => {
  const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const first = await client.chat.completions.create({ model: 'default', messages, tools: [weatherTool] });
  assert.equal(first.choices[0].finish_reason, 'tool_calls');
  const calls = first.choices[0].message.tool_calls;
  assert.equal(calls.length, 1);
  assert.equal(calls[0].function.name, 'get_weather');
  assert.deepEqual(JSON.parse(calls[0].function.arguments), { city: 'Paris' });
  messages.push(first.choices[0].message);
  messages.push({ role: 'tool', tool_call_id: calls[0].id, content: 'sunny, 21C' });
  const second = await client.chat.completions.create({ model: 'default', messages, tools: [weatherTool] });
  assert.equal(second.choices[0].finish_reason, 'stop');
  assert.equal(second.choices[0].message.content, 'It is sunny in Paris.');
});

await check('a streamed client tool call arrives through the stream helpers', async () => {
  const stream = client.chat.completions.stream({
    model: 'default',
    messages: [{ role: 'user', content: 'Stream the weather in Paris, please' }],
    tools: [weatherTool],
  });
  const done = await stream.finalChatCompletion();
  assert.equal(done.choices[0].finish_reason, 'tool_calls');
  assert.equal(done.choices[0].message.tool_calls[0].function.name, 'get_weather');
});

await check('response_format json_schema gives a parsed object', async () => {
  const completion = await client.chat.completions.parse({
    model: 'default',
    messages: [{ role: 'user', content: 'Answer in JSON' }],
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'place', strict: true,
        schema: { type: 'object', properties: { city: { type: 'string' }, sunny: { type: 'boolean' } },
                  required: ['city', 'sunny'], additionalProperties: false },
      },
    },
  });
  assert.deepEqual(completion.choices[0].message.parsed, { city: 'Paris', sunny: true });
});

await check('response_format json_schema in a stream ends with the JSON answer', async () => {
  const stream = client.chat.completions.stream({
    model: 'default',
    messages: [{ role: 'user', content: 'Stream the answer in JSON' }],
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'place', schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    },
  });
  const done = await stream.finalChatCompletion();
  assert.deepEqual(JSON.parse(done.choices[0].message.content), { city: 'Paris', sunny: true });
});

await check('a failed run is a BadRequestError the client does not retry', async () => {
  const count = async () => (await (await fetch(`${baseURL.replace(/\/v1$/, '')}/test/model-calls`, {
    headers: { Authorization: 'Bearer keel-test-token' } })).json()).count;
  const retrying = new OpenAI({ baseURL, apiKey: 'keel-test-token', timeout: 20000, maxRetries: 3 });
  const before = await count();
  await assert.rejects(
    retrying.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'please fail' }] }),
    (error) => {
      assert.ok(error instanceof OpenAI.BadRequestError, String(error));
      assert.equal(error.type, 'run_failed');
      return true;
    });
  assert.equal(await count() - before, 1, 'the run must have been made once');
});

await check('a wrong key is an AuthenticationError', async () => {
  const stranger = new OpenAI({ baseURL, apiKey: 'wrong', timeout: 20000, maxRetries: 0 });
  await assert.rejects(stranger.models.list(), (error) => {
    assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
    assert.equal(error.status, 401);
    return true;
  });
});

console.log('openai client test: all checks passed');
