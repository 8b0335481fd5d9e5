// The official Anthropic npm client (@anthropic-ai/sdk) against keel's /v1/messages endpoint
// (keel_openai_test_server; anthropic_client_test.sh starts it through openai_client_test.sh,
// which sets):
//   KEEL_OPENAI_URL     the server's /v1 root (the Anthropic client wants the root without /v1)
//   KEEL_OPENAI_TOKEN   the token it wants (sent as x-api-key)
//   KEEL_NPM_MODULES    build/npm/node_modules
// Exits non-zero when a check fails.
import assert from 'node:assert/strict';
import { check, countModelCalls, finish } from './client_checks.mjs';

const root = process.env.KEEL_OPENAI_URL.replace(/\/v1$/, '');
const apiKey = process.env.KEEL_OPENAI_TOKEN;
const { default: Anthropic } = await import(`${process.env.KEEL_NPM_MODULES}/@anthropic-ai/sdk/index.mjs`);
// authToken: null: an ANTHROPIC_AUTH_TOKEN in the environment must not add a bearer token.
const client = new Anthropic({ baseURL: root, apiKey, authToken: null, timeout: 20000, maxRetries: 0 });

const modelCalls = () => countModelCalls(root, apiKey);

const weatherTool = {
  name: 'get_weather',
  description: 'The weather in a city now',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

await check('messages.create() returns the answer as a message', async () => {
  const message = await client.messages.create({
    model: 'default',
    max_tokens: 200,
    system: 'You are terse.',
    messages: [{ role: 'user', content: 'Say hello' }],
    temperature: 0.2,
  });
  assert.match(message.id, /^msg_[0-9a-f]{24}$/);
  assert.equal(message.type, 'message');
  assert.equal(message.role, 'assistant');
  assert.equal(message.model, 'default');
  assert.deepEqual(message.content, [{ type: 'text', text: 'Hello from keel.' }]);
  assert.equal(message.stop_reason, 'end_turn');
  assert.equal(message.stop_sequence, null);
  assert.deepEqual(message.usage, { input_tokens: 7, output_tokens: 3 });
  assert.match(message.keel.run_id, /^r_/);
});

await check('a run with a tool round of keel\'s own answers with its final text', async () => {
  const message = await client.messages.create({
    model: 'fast',
    max_tokens: 200,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in the folder?' }] }],
  });
  assert.deepEqual(message.content, [{ type: 'text', text: 'The folder holds notes.txt.' }]);
  assert.deepEqual(message.usage, { input_tokens: 14, output_tokens: 6 });
  assert.equal(message.keel.tool_calls, 1);
});

await check('messages.stream() yields the text events and the final message', async () => {
  const stream = client.messages.stream({
    model: 'default',
    max_tokens: 200,
    messages: [{ role: 'user', content: 'What is in the folder?' }],
  });
  let text = '';
  const types = [];
  stream.on('text', (delta) => { text += delta; });
  stream.on('streamEvent', (event) => types.push(event.type));
  const message = await stream.finalMessage();
  // Every round's text streams as the model writes it, in one text block.
  assert.equal(text, 'Let me look at the folder.\n\nThe folder holds notes.txt.');
  assert.deepEqual(message.content, [{ type: 'text', text }]);
  assert.equal(message.stop_reason, 'end_turn');
  assert.deepEqual(message.usage, { input_tokens: 14, output_tokens: 6 });
  assert.equal(types[0], 'message_start');
  assert.equal(types[1], 'content_block_start');
  assert.deepEqual(types.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
  assert.ok(types.filter((t) => t === 'content_block_delta').length >= 4, types.join(' '));
});

await check('a client tool comes back as tool_use, and its tool_result continues the run', async () => {
  const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const first = await client.messages.create({ model: 'default', max_tokens: 200, tools: [weatherTool], messages });
  assert.equal(first.stop_reason, 'tool_use');
  const uses = first.content.filter((block) => block.type === 'tool_use');
  assert.equal(uses.length, 1);
  assert.equal(uses[0].name, 'get_weather');
  assert.deepEqual(uses[0].input, { city: 'Paris' });
  messages.push({ role: 'assistant', content: first.content });
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: uses[0].id, content: 'Paris: sunny, 21C' }] });
  const second = await client.messages.create({ model: 'default', max_tokens: 200, tools: [weatherTool], messages });
  assert.equal(second.stop_reason, 'end_turn');
  assert.deepEqual(second.content, [{ type: 'text', text: 'It is sunny in Paris.' }]);
});

await check('a streamed client tool call is a tool_use block with its input', async () => {
  const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const stream = client.messages.stream({
    model: 'default', max_tokens: 200, tools: [weatherTool], tool_choice: { type: 'any' }, messages,
  });
  const message = await stream.finalMessage();
  assert.equal(message.stop_reason, 'tool_use');
  const use = message.content.find((block) => block.type === 'tool_use');
  assert.ok(use, JSON.stringify(message.content));
  assert.equal(use.name, 'get_weather');
  assert.deepEqual(use.input, { city: 'Paris' });
  messages.push({ role: 'assistant', content: message.content });
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: [{ type: 'text', text: 'sunny' }] }] });
  const next = client.messages.stream({ model: 'default', max_tokens: 200, tools: [weatherTool], messages });
  assert.equal(await next.finalText(), 'It is sunny in Paris.');
});

await check('a failed run is a BadRequestError the client does not retry', async () => {
  const retrying = new Anthropic({ baseURL: root, apiKey, authToken: null, timeout: 20000, maxRetries: 2 });
  const before = await modelCalls();
  await assert.rejects(
    retrying.messages.create({ model: 'default', max_tokens: 200, messages: [{ role: 'user', content: 'please fail' }] }),
    (error) => {
      assert.ok(error instanceof Anthropic.BadRequestError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.error.error.type, 'api_error');
      assert.equal(error.headers.get('x-should-retry'), 'false');
      return true;
    });
  assert.equal(await modelCalls() - before, 1);
});

await check('a streamed failed run raises an APIError', async () => {
  const stream = client.messages.stream({ model: 'default', max_tokens: 200, messages: [{ role: 'user', content: 'please fail' }] });
  await assert.rejects(stream.finalMessage(), (error) => {
    assert.ok(error instanceof Anthropic.APIError, String(error));
    assert.equal(error.error.error.type, 'api_error');
    return true;
  });
});

await check('an unknown model is a NotFoundError', async () => {
  await assert.rejects(
    client.messages.create({ model: 'no-such-profile', max_tokens: 200, messages: [{ role: 'user', content: 'hi' }] }),
    (error) => {
      assert.ok(error instanceof Anthropic.NotFoundError, String(error));
      assert.equal(error.status, 404);
      assert.equal(error.error.error.type, 'not_found_error');
      return true;
    });
});

await check('an image block is a BadRequestError naming the field', async () => {
  await assert.rejects(
    client.messages.create({
      model: 'default',
      max_tokens: 200,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] }],
    }),
    (error) => {
      assert.ok(error instanceof Anthropic.BadRequestError, String(error));
      assert.equal(error.error.error.type, 'invalid_request_error');
      assert.match(error.message, /messages\.0\.content\.0\.type/);
      return true;
    });
});

await check('a wrong key is an AuthenticationError', async () => {
  const stranger = new Anthropic({ baseURL: root, apiKey: 'wrong', authToken: null, timeout: 20000, maxRetries: 0 });
  await assert.rejects(
    stranger.messages.create({ model: 'default', max_tokens: 200, messages: [{ role: 'user', content: 'hi' }] }),
    (error) => {
      assert.ok(error instanceof Anthropic.AuthenticationError, String(error));
      assert.equal(error.status, 401);
      assert.equal(error.error.error.type, 'authentication_error');
      return true;
    });
});

finish('anthropic client test');
